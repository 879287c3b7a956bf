import { expect } from 'chai';
import { startTracing, type Tracing } from '../../src/kernel/tracing/otel-sdk.adapter.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import type { McpServerFields } from '../../src/records/mcp-server.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures/http-fixture.js';
import { attribute, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

/** Health checks and rounds are traces of their own, whoever asks for them (the scheduler, an API request). */
describe('Traces of health checks and rounds', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let tracing: Tracing | undefined;
  let sut: ChatHarness;
  let workers: RunningWorkers;
  let fixture: HttpFixture;
  before(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' });
    tracing = await startTracing('aiops-test');
    // A round every second (the checks it adds are scheduled ones); the manual check comes through the API.
    sut = await startChatHarness(redis, { workers: false, env: { HEALTH_CRON: '* * * * * *' } });
    fixture = await startHttpFixture({ label: 'traced' });
  });
  after(async () => {
    await workers?.close();
    await sut.close();
    await fixture.close();
    await tracing?.shutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    await receiver.close();
    await redis.destroy();
  });

  it('makes a root span of each check and round, with how it ended', async () => {
    const server = await sut.records.mcpServers.create({ name: 'traced', url: fixture.url } as McpServerFields, OPERATOR);
    workers = await startWorkers(sut.config, silentLogger(), { queues: [QueueName.Health] });
    await workers.ready();
    const admin = await sut.token('admin', ['ai_ops.change_mcpserver', 'ai_ops.view_mcpserver']);
    const checked = await sut.call('POST', `/api/plugins/ai-ops/mcp-servers/${server.id}/health-check/`, { key: admin });
    expect(checked.status).to.equal(200);

    const spans = () => receiver.spans;
    const check = (reason: string) =>
      spans().find((span) => span.name === 'health-check' && attribute(span, 'aiops.health.reason') === reason);
    await until(
      () => Boolean(check('manual') && check('scheduled') && spans().some((span) => span.name === 'health-round')),
      20_000,
      'the spans',
    );
    const request = spans().find((span) => span.name === 'POST /api/plugins/ai-ops/mcp-servers/{id}/health-check/')!;
    for (const span of [check('manual')!, check('scheduled')!, spans().find((span) => span.name === 'health-round')!]) {
      expect(span.parentSpanId || undefined, span.name).to.equal(undefined);
      expect(span.traceId, `${span.name} is a trace of its own`).to.not.equal(request.traceId);
    }
    const manual = check('manual')!;
    expect([
      attribute(manual, 'aiops.mcp_server.id'),
      attribute(manual, 'aiops.health.status'),
      attribute(manual, 'aiops.health.healthy'),
      attribute(manual, 'aiops.health.method'),
    ]).to.deep.equal([server.id, 'Healthy', true, 'protocol']);
    expect(Number(attribute(manual, 'aiops.health.latency_ms'))).to.be.at.least(0);
    expect(
      Number(
        attribute(
          spans().find((span) => span.name === 'health-round')!,
          'aiops.health.servers',
        ),
      ),
    ).to.be.at.least(1);
  });
});
