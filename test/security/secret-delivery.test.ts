import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildWorkerMcp } from '../../src/roles/worker-mcp.js';
import { ConcurrencyLimiter } from '../../src/chat/providers/concurrency-limiter.js';
import type { McpServerFields } from '../../src/records/mcp-server.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import { SecretResolver } from '../../src/records/secret-resolver.js';
import { startChatHarness, STUB_KEY, type ChatHarness } from '../chat/chat-harness.js';
import { loopbackPolicy } from '../support/outbound.js';
import { startProviderStub, type ProviderStub } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const SECRETS = '/api/extras/secrets/';
const CHAT = '/plugins/ai-ops/api/chat/';

// Finding 2 of the least-privilege audit: secrets delivered to an endpoint the user chose.
describe('security: a secret goes only where a superuser sent it', () => {
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
    admin = (await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null }))
      .key;
  });
  after(async () => {
    await listener.close();
    await sut.close();
    await redis.destroy();
    rmSync(allowedDir, { recursive: true, force: true });
  });

  it('lets extras.add_secret read only the variables and folders the operator allows', async () => {
    const key = await sut.token('keeper', ['extras.add_secret', 'extras.change_secret', 'extras.view_secret']);
    const create = (name: string, provider: string, parameters: object) =>
      sut.call('POST', SECRETS, { key, body: { name, provider, parameters } });
    expect((await create('redis', 'environment-variable', { variable: 'REDIS_URL' })).status).to.equal(403);
    expect((await create('git', 'environment-variable', { variable: 'GIT_TOKEN' })).status).to.equal(403);
    expect((await create('hosts', 'text-file', { path: '/etc/hostname' })).status).to.equal(403);
    expect((await create('escape', 'text-file', { path: `${allowedDir}/../../etc/hostname` })).status).to.equal(403);

    writeFileSync(path.join(allowedDir, 'token'), 'value\n');
    expect((await create('hint', 'environment-variable', { variable: 'AIOPS_SHARED_HINT' })).status).to.equal(201);
    const file = await create('file', 'text-file', { path: path.join(allowedDir, 'token') });
    expect(file.status).to.equal(201);
    // An allowed secret cannot be moved to what is not allowed; a superuser's keeps its location.
    expect(
      (await sut.call('PATCH', `${SECRETS}${file.body.id}/`, { key, body: { parameters: { path: '/proc/self/environ' } } })).status,
    ).to.equal(403);
    const admins = (await sut.call('GET', `${SECRETS}?name=${sut.secret.name}`, { key: admin })).body.results[0];
    expect((await sut.call('PATCH', `${SECRETS}${admins.id}/`, { key, body: { description: 'the stub key' } })).status).to.equal(200);
  });

  it('needs superuser to name a secret on a model', async () => {
    const key = await sut.token('adder', ['ai_ops.add_llmmodel', 'ai_ops.view_llmmodel']);
    const named = await sut.call('POST', MODELS, {
      key,
      body: { name: 'thief', provider: 'openai', model_secret_key: sut.secret.name, hosted_endpoint: `${listener.url}/v1` },
    });
    expect(named.status).to.equal(403);
    expect(named.body.detail).to.match(/only a superuser may name a secret/i);
    expect(
      (await sut.call('POST', MODELS, { key, body: { name: 'keyless', provider: 'openai', hosted_endpoint: `${listener.url}/v1` } }))
        .status,
    ).to.equal(201);
  });

  /** A model someone short of superuser set up, whose secret a superuser named later without vouching for its endpoint. */
  async function keyedModelOfAnother(body: object): Promise<{ id: string; name: string }> {
    const adder = await sut.token(`adder-${Date.now()}`, ['ai_ops.add_llmmodel', 'ai_ops.view_llmmodel']);
    const created = await sut.call('POST', MODELS, {
      key: adder,
      body: { provider: 'openai', hosted_endpoint: `${sut.stub.url}/v1`, ...body },
    });
    expect(created.status).to.equal(201);
    expect(
      (await sut.call('PATCH', `${MODELS}${created.body.id}/`, { key: admin, body: { model_secret_key: sut.secret.name } })).status,
    ).to.equal(200);
    return created.body;
  }

  it('clears the secret of a model retargeted by ai_ops.change_llmmodel: the key never reaches the new endpoint', async () => {
    const model = await keyedModelOfAnother({ name: 'shared-keyed' });
    const changer = await sut.token('changer', ['ai_ops.change_llmmodel', 'ai_ops.view_llmmodel']);
    const moved = await sut.call('PATCH', `${MODELS}${model.id}/`, { key: changer, body: { hosted_endpoint: `${listener.url}/v1` } });
    expect(moved.status).to.equal(200);
    expect((await sut.call('GET', `${MODELS}${model.id}/`, { key: admin })).body.model_secret_key).to.equal('');

    const alice = await sut.token('alice');
    expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'hello', model: model.name } })).status).to.equal(200);
    expect(listener.requests).to.have.length(1);
    expect(JSON.stringify(listener.requests[0]!.headers)).to.not.include(STUB_KEY);
    expect(sut.stub.requests).to.have.length(0);
  });

  it('counts a model_config key that picks a route (Hugging Face provider, custom handler) as where the secret goes', async () => {
    const model = await keyedModelOfAnother({
      name: 'routed',
      provider: 'huggingface',
      hosted_endpoint: '',
      model_config: { inference_provider: 'together', max_tokens: 100 },
    });
    const changer = await sut.token('route-changer', ['ai_ops.change_llmmodel', 'ai_ops.view_llmmodel']);
    const path = `${MODELS}${model.id}/`;
    const tuned = await sut.call('PATCH', path, {
      key: changer,
      body: { model_config: { inference_provider: 'together', max_tokens: 200 } },
    });
    expect(tuned.body.model_config).to.deep.equal({ inference_provider: 'together', max_tokens: 200 });
    expect((await sut.call('GET', path, { key: admin })).body.model_secret_key).to.equal(sut.secret.name);
    expect(
      (await sut.call('PATCH', path, { key: changer, body: { model_config: { inference_provider: 'fireworks-ai', max_tokens: 200 } } }))
        .status,
    ).to.equal(200);
    expect((await sut.call('GET', path, { key: admin })).body.model_secret_key).to.equal('');
  });

  it('clears the secret of an MCP server retargeted by ai_ops.change_mcpserver: its health check carries no bearer', async () => {
    const server = await sut.records.mcpServers.create(
      { name: 'guarded', url: sut.stub.url, health_check: '/health', auth_secret_key: sut.secret.name } as McpServerFields,
      OPERATOR,
    );
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

  it('needs superuser to make a model the default, or to change where the default sends requests', async () => {
    const adder = await sut.token('default-adder', ['ai_ops.add_llmmodel', 'ai_ops.view_llmmodel']);
    const flagged = await sut.call('POST', MODELS, {
      key: adder,
      body: { name: 'everyones', provider: 'openai', hosted_endpoint: `${listener.url}/v1`, is_default: true },
    });
    expect(flagged.status).to.equal(403);
    expect(flagged.body.detail).to.match(/^is_default: only a superuser/);

    const model = await sut.model();
    expect((await sut.call('GET', `${MODELS}${model.id}/`, { key: admin })).body.is_default).to.equal(true);
    const changer = await sut.token('default-changer', ['ai_ops.change_llmmodel', 'ai_ops.view_llmmodel']);
    const created = await sut.call('POST', MODELS, {
      key: admin,
      body: { name: 'spare', provider: 'openai', hosted_endpoint: `${listener.url}/v1` },
    });
    expect((await sut.call('PATCH', `${MODELS}${created.body.id}/`, { key: changer, body: { is_default: true } })).status).to.equal(403);
    const moved = await sut.call('PATCH', `${MODELS}${model.id}/`, { key: changer, body: { hosted_endpoint: `${listener.url}/v1` } });
    expect(moved.status).to.equal(403);
    expect(moved.body.detail).to.match(/where the default LLM model sends requests/);
    // What does not move the default's requests stays theirs to change, and so does giving the flag up.
    expect((await sut.call('PATCH', `${MODELS}${model.id}/`, { key: changer, body: { temperature: 0.5 } })).status).to.equal(200);
    expect((await sut.call('PATCH', `${MODELS}${model.id}/`, { key: changer, body: { is_default: false } })).status).to.equal(200);
    expect((await sut.call('PATCH', `${MODELS}${model.id}/`, { key: admin, body: { is_default: true } })).status).to.equal(200);
    expect((await sut.call('GET', `${MODELS}${model.id}/`, { key: admin })).body).to.include({
      is_default: true,
      hosted_endpoint: `${sut.stub.url}/v1`,
    });
  });

  it('needs superuser to change where a model a superuser set up sends requests: the chats that name it would follow', async () => {
    const model = await sut.model({ is_default: false });
    const changer = await sut.token('trusted-changer', ['ai_ops.change_llmmodel', 'ai_ops.view_llmmodel']);
    const path = `${MODELS}${model.id}/`;
    for (const body of [{ hosted_endpoint: `${listener.url}/v1` }, { provider: 'ollama' }]) {
      const moved = await sut.call('PATCH', path, { key: changer, body });
      expect(moved.status, JSON.stringify(body)).to.equal(403);
      expect(moved.body.detail).to.match(/^Only a superuser may change where an LLM model a superuser set up sends requests/);
    }
    expect((await sut.call('PATCH', path, { key: changer, body: { temperature: 0.7, description: 'tuned' } })).status).to.equal(200);
    expect((await sut.call('GET', path, { key: admin })).body).to.include({
      hosted_endpoint: `${sut.stub.url}/v1`,
      model_secret_key: sut.secret.name,
      temperature: 0.7,
    });

    const alice = await sut.token('alice-trusted');
    const completions = (stub: ProviderStub) => stub.requests.filter((request) => request.path.endsWith('/chat/completions')).length;
    const [before, elsewhere] = [completions(sut.stub), completions(listener)];
    expect((await sut.call('POST', CHAT, { key: alice, body: { message: 'hello', model: model.name } })).status).to.equal(200);
    expect(completions(sut.stub)).to.be.above(before);
    expect(completions(listener)).to.equal(elsewhere);
  });

  it('needs superuser to rename or delete a model a superuser set up: its name cannot be handed to another model', async () => {
    const model = await sut.model({ is_default: false });
    const taker = await sut.token('name-taker', [
      'ai_ops.add_llmmodel',
      'ai_ops.change_llmmodel',
      'ai_ops.delete_llmmodel',
      'ai_ops.view_llmmodel',
    ]);
    const path = `${MODELS}${model.id}/`;
    const renamed = await sut.call('PATCH', path, { key: taker, body: { name: `${model.name}-old` } });
    expect(renamed.status).to.equal(403);
    expect(renamed.body.detail).to.match(/^name: Only a superuser may rename or delete an LLM model whose destination a superuser set/);
    const deleted = await sut.call('DELETE', path, { key: taker });
    expect(deleted.status).to.equal(403);
    expect(
      (
        await sut.call('POST', MODELS, {
          key: taker,
          body: { name: model.name, provider: 'openai', hosted_endpoint: `${listener.url}/v1` },
        })
      ).status,
    ).to.equal(400);

    // Their own models stay theirs to rename and delete.
    const own = await sut.call('POST', MODELS, {
      key: taker,
      body: { name: 'takers-own', provider: 'openai', hosted_endpoint: `${listener.url}/v1` },
    });
    expect((await sut.call('PATCH', `${MODELS}${own.body.id}/`, { key: taker, body: { name: 'takers-renamed' } })).status).to.equal(200);
    expect((await sut.call('DELETE', `${MODELS}${own.body.id}/`, { key: taker })).status).to.equal(204);
    expect((await sut.call('DELETE', path, { key: admin })).status).to.equal(204);
  });

  it('needs superuser to give a secret a name a model or server sends, by creating or renaming it', async () => {
    const model = await sut.model();
    const used = (await sut.call('GET', `${MODELS}${model.id}/`, { key: admin })).body.model_secret_key as string;
    const keeper = await sut.token('renamer', ['extras.add_secret', 'extras.change_secret', 'extras.delete_secret', 'extras.view_secret']);
    const spare = await sut.call('POST', SECRETS, {
      key: keeper,
      body: { name: 'spare-hint', provider: 'environment-variable', parameters: { variable: 'AIOPS_SHARED_HINT' } },
    });
    expect(spare.status).to.equal(201);

    const renamed = await sut.call('PATCH', `${SECRETS}${spare.body.id}/`, { key: keeper, body: { name: used } });
    expect(renamed.status).to.equal(403);
    expect(renamed.body.detail).to.match(/^name: only a superuser may give a secret the name/);
    // Deleting the one a model sends, to add another under its name, is the same move: a secret in use stays.
    const original = (await sut.call('GET', `${SECRETS}?name=${used}`, { key: admin })).body.results[0];
    const deleted = await sut.call('DELETE', `${SECRETS}${original.id}/`, { key: keeper });
    expect(deleted.status).to.equal(409);
    expect(deleted.body.detail).to.include(`LLM model ${model.name}`);
    // A name nothing sends is anyone's.
    expect((await sut.call('PATCH', `${SECRETS}${spare.body.id}/`, { key: keeper, body: { name: 'spare-hint-2' } })).status).to.equal(200);
  });

  it('leaves Healthy and Unhealthy to health checks: a server pointed elsewhere is Unknown again until checked there', async () => {
    const adder = await sut.token('status-setter', ['ai_ops.add_mcpserver', 'ai_ops.change_mcpserver', 'ai_ops.view_mcpserver']);
    const healthy = await sut.call('POST', SERVERS, { key: adder, body: { name: 'self-declared', url: listener.url, status: 'Healthy' } });
    expect(healthy.status).to.equal(403);
    expect(healthy.body.detail).to.match(/^status: only a health check \(or a superuser\) may set an MCP server Healthy/);
    const added = await sut.call('POST', SERVERS, { key: adder, body: { name: 'checked-first', url: listener.url } });
    expect(added.body.status.name).to.equal('Unknown');
    expect(
      (await sut.call('PATCH', `${SERVERS}${added.body.id}/`, { key: adder, body: { status: 'Maintenance' } })).body.status.name,
    ).to.equal('Maintenance');

    const checked = await sut.records.mcpServers.create(
      { name: 'checked-by-admin', url: sut.stub.url, status: 'Healthy' } as McpServerFields,
      OPERATOR,
    );
    expect(checked.status?.name).to.equal('Healthy');
    const path = `${SERVERS}${checked.id}/`;
    // The form sends the status it shows: unchanged, it is no claim.
    expect((await sut.call('PATCH', path, { key: adder, body: { description: 'kept', status: 'Healthy' } })).body.status.name).to.equal(
      'Healthy',
    );
    const moved = await sut.call('PATCH', path, { key: adder, body: { url: listener.url, status: 'Healthy' } });
    expect(moved.status).to.equal(200);
    expect(moved.body.status.name).to.equal('Unknown');
    // A superuser who says what it is, is believed.
    expect((await sut.call('PATCH', path, { key: admin, body: { url: sut.stub.url, status: 'Healthy' } })).body.status.name).to.equal(
      'Healthy',
    );
  });

  it("needs superuser to take the approval of a server's tool calls away; anyone else's server is external", async () => {
    const adder = await sut.token('server-adder', ['ai_ops.add_mcpserver', 'ai_ops.change_mcpserver', 'ai_ops.view_mcpserver']);
    const add = (body: object) => sut.call('POST', SERVERS, { key: adder, body: { url: listener.url, ...body } });
    const unapproved = await add({ name: 'unapproved', approval: 'never' });
    expect(unapproved.status).to.equal(403);
    expect(unapproved.body.detail).to.match(/^approval: only a superuser/);
    expect((await add({ name: 'trusted', mcp_type: 'internal' })).status).to.equal(403);
    // No server may pass for the built-in tools on an approval screen or in the audit log.
    const posing = await add({ name: 'Built-In' });
    expect(posing.status).to.equal(400);
    expect(posing.body.name[0]).to.match(/names the built-in platform tools/);
    const plain = await add({ name: 'plain' });
    expect(plain.status).to.equal(201);
    expect(plain.body).to.include({ mcp_type: 'external', approval: 'writes' });

    const guarded = await sut.records.mcpServers.create(
      { name: 'trusted-by-admin', url: sut.stub.url, auth_secret_key: sut.secret.name, approval: 'never' } as McpServerFields,
      OPERATOR,
    );
    expect(guarded).to.include({ mcp_type: 'internal', approval: 'never' });
    const path = `${SERVERS}${guarded.id}/`;
    expect((await sut.call('PATCH', `${SERVERS}${plain.body.id}/`, { key: adder, body: { approval: 'never' } })).status).to.equal(403);
    expect((await sut.call('PATCH', `${SERVERS}${plain.body.id}/`, { key: adder, body: { mcp_type: 'internal' } })).status).to.equal(403);
    // A PUT starts again from the defaults, whose internal kind only a superuser's word makes.
    const replaced = await sut.call('PUT', `${SERVERS}${plain.body.id}/`, { key: adder, body: { name: 'plain', url: listener.url } });
    expect(replaced.status).to.equal(200);
    expect(replaced.body.mcp_type).to.equal('external');
    expect((await sut.call('PATCH', path, { key: adder, body: { description: 'kept as the admin set it' } })).body).to.include({
      mcp_type: 'internal',
      approval: 'never',
    });
    // Pointed elsewhere, it keeps nothing a superuser trusted about its old address.
    const moved = await sut.call('PATCH', path, { key: adder, body: { url: listener.url } });
    expect(moved.status).to.equal(200);
    expect(moved.body).to.include({ mcp_type: 'external', approval: 'writes', auth_secret_key: '' });
  });
});
