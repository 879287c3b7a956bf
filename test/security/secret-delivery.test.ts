import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPERATOR } from '../../shared/auth/permissions.js';
import { silentLogger } from '../../shared/logging/logger.js';
import { buildWorkerMcp } from '../../roles/worker.js';
import { ConcurrencyLimiter } from '../../shared/providers/concurrency-limiter.js';
import type { McpServerFields } from '../../shared/records/mcp-server.js';
import { createRecords } from '../../shared/adapters/redis/redis-records.js';
import { SecretResolver } from '../../shared/secrets/secret-resolver.js';
import { startChatHarness, STUB_KEY, type ChatHarness } from '../chat/chat-harness.js';
import { loopbackPolicy } from '../support/outbound.js';
import { startProviderStub, type ProviderStub } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const SECRETS = '/api/extras/secrets/';
const CHAT = '/plugins/ai-ops/api/chat/';

// Finding 2 of the least-privilege audit: secrets delivered to an endpoint the user chose.
describe('security: a secret goes only where a superuser sent it (finding 2)', () => {
  let redis: TestRedis;
  let sut: ChatHarness;
  let listener: ProviderStub;
  let allowedDir: string;
  let admin: string;
  before(async () => {
    redis = await startTestRedis();
    allowedDir = mkdtempSync(path.join(os.tmpdir(), 'aiops-secret-dir-'));
    sut = await startChatHarness(redis, { env: { SECRET_ENV_ALLOW: 'AIOPS_SHARED_HINT', SECRET_FILE_DIRS: allowedDir } });
    listener = await startProviderStub();
    admin = (await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null })).key;
  });
  after(async () => {
    await listener.close();
    await sut.close();
    await redis.destroy();
    rmSync(allowedDir, { recursive: true, force: true });
  });

  it('lets extras.add_secret read only the variables and folders the operator allows', async () => {
    const key = await sut.token('keeper', ['extras.add_secret', 'extras.change_secret', 'extras.view_secret']);
    const create = (name: string, provider: string, parameters: object) => sut.call('POST', SECRETS, { key, body: { name, provider, parameters } });
    expect((await create('redis', 'environment-variable', { variable: 'REDIS_URL' })).status).to.equal(403);
    expect((await create('git', 'environment-variable', { variable: 'GIT_TOKEN' })).status).to.equal(403);
    expect((await create('hosts', 'text-file', { path: '/etc/hostname' })).status).to.equal(403);
    expect((await create('escape', 'text-file', { path: `${allowedDir}/../../etc/hostname` })).status).to.equal(403);

    writeFileSync(path.join(allowedDir, 'token'), 'value\n');
    expect((await create('hint', 'environment-variable', { variable: 'AIOPS_SHARED_HINT' })).status).to.equal(201);
    const file = await create('file', 'text-file', { path: path.join(allowedDir, 'token') });
    expect(file.status).to.equal(201);
    // An allowed secret cannot be moved to what is not allowed; a superuser's keeps its location.
    expect((await sut.call('PATCH', `${SECRETS}${file.body.id}/`, { key, body: { parameters: { path: '/proc/self/environ' } } })).status).to.equal(403);
    const admins = (await sut.call('GET', `${SECRETS}?name=${sut.secret.name}`, { key: admin })).body.results[0];
    expect((await sut.call('PATCH', `${SECRETS}${admins.id}/`, { key, body: { description: 'the stub key' } })).status).to.equal(200);
  });

  it('needs superuser to name a secret on a model', async () => {
    const key = await sut.token('adder', ['ai_ops.add_llmmodel', 'ai_ops.view_llmmodel']);
    const named = await sut.call('POST', MODELS, { key, body: { name: 'thief', provider: 'openai', model_secret_key: sut.secret.name, hosted_endpoint: `${listener.url}/v1` } });
    expect(named.status).to.equal(403);
    expect(named.body.detail).to.match(/only a superuser may name a secret/i);
    expect((await sut.call('POST', MODELS, { key, body: { name: 'keyless', provider: 'openai', hosted_endpoint: `${listener.url}/v1` } })).status).to.equal(201);
  });

  it('clears the secret of a model retargeted by ai_ops.change_llmmodel: the key never reaches the new endpoint', async () => {
    const model = await sut.model();
    const changer = await sut.token('changer', ['ai_ops.change_llmmodel', 'ai_ops.view_llmmodel']);
    const moved = await sut.call('PATCH', `${MODELS}${model.id}/`, { key: changer, body: { hosted_endpoint: `${listener.url}/v1` } });
    expect(moved.status).to.equal(200);
    expect((await sut.call('GET', `${MODELS}${model.id}/`, { key: admin })).body.model_secret_key).to.equal('');

    const alice = await sut.token('alice');
    expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } })).status).to.equal(200);
    expect(listener.requests).to.have.length(1);
    expect(JSON.stringify(listener.requests[0]!.headers)).to.not.include(STUB_KEY);
    expect(sut.stub.requests).to.have.length(0);
  });

  it('clears the secret of an MCP server retargeted by ai_ops.change_mcpserver: its health check carries no bearer', async () => {
    const server = await sut.records.mcpServers.create({ name: 'guarded', url: sut.stub.url, auth_secret_key: sut.secret.name } as McpServerFields, OPERATOR);
    const changer = await sut.token('mcp-changer', ['ai_ops.change_mcpserver', 'ai_ops.view_mcpserver']);
    const moved = await sut.call('PATCH', `${SERVERS}${server.id}/`, { key: changer, body: { url: listener.url } });
    expect(moved.status).to.equal(200);
    expect(moved.body.auth_secret_key).to.equal('');

    const before = listener.requests.length;
    const runtime = buildWorkerMcp({
      redis: redis.client,
      collections: createRecords(redis.client, sut.prefix).collections,
      keyPrefix: sut.prefix,
      config: sut.config,
      secrets: new SecretResolver(sut.records.secrets),
      limiter: new ConcurrencyLimiter(1),
      logger: silentLogger(),
      outbound: loopbackPolicy(),
      clientVersion: 'test',
    });
    try {
      await runtime.health.check(server.id, 'manual', silentLogger());
    } finally {
      await runtime.close();
    }
    const checks = listener.requests.slice(before);
    expect(checks.map((request) => request.path)).to.deep.equal(['/health']);
    expect(checks[0]!.headers.authorization).to.equal(undefined);
  });
});
