import { expect } from 'chai';
import { startApiServer } from '../../src/roles/api.js';
import { loadConfig } from '../../src/roles/config.js';
import { createRedisClient, waitForRedis } from '../../src/kernel/redis/redis-client.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createMetrics, serveMetrics } from '../../src/kernel/metrics/metrics.js';
import { jobObserver } from '../../src/kernel/bullmq/bullmq-worker.adapter.js';
import { providerObserver } from '../../src/chat/providers/provider-registry.adapter.js';
import { startTestApi, type TestApi } from '../support/api.js';

describe('metrics observers', () => {
  it('record job outcomes and provider calls, served on their own port for roles without an API', async () => {
    const metrics = createMetrics();
    const jobs = jobObserver(metrics);
    jobs.settled('chat', 0.012, 'completed');
    jobs.settled('chat', 0.5, 'failed', 'unrecoverable');
    const providers = providerObserver(metrics);
    providers.called('openai', 0.2);
    providers.called('anthropic', 1.5, 'auth');
    const exporter = await serveMetrics(metrics, '127.0.0.1', 0);
    try {
      const text = await (await fetch(`http://127.0.0.1:${exporter.port}/metrics`)).text();
      expect(text).to.include('aiops_job_duration_seconds_count{queue="chat",outcome="completed"} 1');
      expect(text).to.include('aiops_job_failures_total{queue="chat",reason="unrecoverable"} 1');
      expect(text).to.include('aiops_provider_request_duration_seconds_count{provider="openai",outcome="ok"} 1');
      expect(text).to.include('aiops_provider_errors_total{provider="anthropic",kind="auth"} 1');
      expect((await fetch(`http://127.0.0.1:${exporter.port}/other`)).status).to.equal(404);
    } finally {
      await exporter.close();
    }
  });
});

describe('API lifecycle and metrics', () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut.close();
  });

  it('answers /status 503 while draining, still serving requests, then stops', async () => {
    const redis = createRedisClient({ topology: sut.redis.url, role: 'request', logger: silentLogger() });
    await waitForRedis(redis, 5_000);
    const config = loadConfig({ REDIS_URL: sut.redis.url, REDIS_KEY_PREFIX: sut.keyPrefix, DRAIN_DELAY_MS: '600' });
    const api = await startApiServer({ config, redis, port: 0, logger: silentLogger(), version: 't' });
    const base = `http://127.0.0.1:${api.port}`;
    expect((await fetch(`${base}/status`)).status).to.equal(200);
    const closing = api.close();
    const status = await fetch(`${base}/status`);
    expect(status.status).to.equal(503);
    expect(await status.json()).to.include({ status: 'unavailable', detail: 'draining' });
    expect(status.headers.get('connection')).to.equal('close');
    const served = await fetch(`${base}/api/extras/statuses/`, { headers: { authorization: `Token ${sut.adminKey}` } });
    expect(served.status).to.equal(200);
    await closing;
    await fetch(`${base}/status`).then(
      () => expect.fail('the server should be closed'),
      (error: Error) => expect(error).to.be.instanceOf(Error),
    );
    redis.disconnect();
  });

  it('serves Prometheus metrics: request latencies by route and MCP server health', async () => {
    const metrics = createMetrics();
    const redis = createRedisClient({ topology: sut.redis.url, role: 'request', logger: silentLogger() });
    await waitForRedis(redis, 5_000);
    const config = loadConfig({ REDIS_URL: sut.redis.url, REDIS_KEY_PREFIX: sut.keyPrefix, DRAIN_DELAY_MS: '0' });
    const api = await startApiServer({ config, redis, port: 0, logger: silentLogger(), version: 't', metrics });
    try {
      const base = `http://127.0.0.1:${api.port}`;
      const auth = { authorization: `Token ${sut.adminKey}` };
      const created = await sut.call('POST', '/api/plugins/ai-ops/mcp-servers/', {
        body: { name: 'metered', url: 'http://127.0.0.1:9/', status: 'Healthy' },
      });
      expect(created.status).to.equal(201);
      await fetch(`${base}/api/plugins/ai-ops/mcp-servers/${created.body.id}/`, { headers: auth });
      await fetch(`${base}/api/plugins/ai-ops/llm-models/`, { headers: auth });
      const scrape = await fetch(`${base}/metrics`);
      expect(scrape.status).to.equal(200);
      expect(scrape.headers.get('content-type')).to.match(/^text\/plain/);
      const text = await scrape.text();
      expect(text).to.match(
        /aiops_http_request_duration_seconds_count\{method="GET",route="\/api\/plugins\/ai-ops\/mcp-servers\/\{id\}\/",status="200"\} 1/,
      );
      expect(text).to.match(
        /aiops_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/plugins\/ai-ops\/llm-models\/",status="200"\}/,
      );
      expect(text).to.include('aiops_mcp_server_up{server="metered",status="Healthy"} 1');
      for (const queue of ['chat', 'health', 'index'])
        expect(text).to.match(new RegExp(`aiops_queue_jobs\\{queue="${queue}",state="waiting"\\} \\d+`));
      expect(text).to.not.include(created.body.id);
    } finally {
      await api.close();
      redis.disconnect();
    }
  });
});
