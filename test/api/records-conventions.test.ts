import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/roles/config.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { startWorkers } from '../../src/roles/worker.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { until } from '../support/until.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SECRETS = '/api/extras/secrets/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const STATUSES = '/api/extras/statuses/';
const TOKENS = '/api/users/tokens/';
const MAX_PAGE_SIZE = 7;

/** The path and query of a link the API answered (absolute, on this API's address). */
function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

describe("records API: the conventions of Nautobot's clients", () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi(undefined, { MAX_PAGE_SIZE: String(MAX_PAGE_SIZE) });
    for (let i = 0; i < 10; i++) {
      const created = await sut.call('POST', SECRETS, {
        body: { name: `paged-${String(i).padStart(2, '0')}`, provider: 'environment-variable', parameters: { variable: `VAR_${i}` } },
      });
      expect(created.status).to.equal(201);
    }
  });
  after(async () => {
    await sut.close();
  });

  describe('limit and MAX_PAGE_SIZE', () => {
    it('serves limit=0 as pages of MAX_PAGE_SIZE, with next links through the rest', async () => {
      const first = await sut.call('GET', `${SECRETS}?limit=0`);
      expect(first.status).to.equal(200);
      expect(first.body.count).to.equal(10);
      expect(first.body.results).to.have.length(MAX_PAGE_SIZE);
      expect(pathOf(first.body.next)).to.equal(`${SECRETS}?limit=${MAX_PAGE_SIZE}&offset=${MAX_PAGE_SIZE}`);
      const second = await sut.call('GET', pathOf(first.body.next));
      expect(second.body.results.map((secret: { name: string }) => secret.name)).to.deep.equal(['paged-07', 'paged-08', 'paged-09']);
      expect(second.body.next).to.equal(null);
    });

    it('serves a larger limit at MAX_PAGE_SIZE and a smaller one as asked; a negative one is refused', async () => {
      expect((await sut.call('GET', `${SECRETS}?limit=1000`)).body.results).to.have.length(MAX_PAGE_SIZE);
      expect((await sut.call('GET', `${SECRETS}?limit=3&offset=8`)).body.results).to.have.length(2);
      expect((await sut.call('GET', `${SECRETS}?limit=-1`)).status).to.equal(400);
      // The default page (50) is no larger than MAX_PAGE_SIZE either.
      expect((await sut.call('GET', SECRETS)).body.results).to.have.length(MAX_PAGE_SIZE);
    });

    it('pages statuses and tokens the same way; the audit log keeps its own limit', async () => {
      expect((await sut.call('GET', `${STATUSES}?limit=0`)).body.count).to.equal(4);
      for (let i = 0; i < 8; i++) await sut.token({ username: `paged-user-${i}` });
      const tokens = await sut.call('GET', `${TOKENS}?limit=0`);
      expect(tokens.body.results).to.have.length(MAX_PAGE_SIZE);
      expect(tokens.body.next).to.be.a('string');
      expect((await sut.call('GET', '/api/plugins/ai-ops/audit-log/?limit=0')).status).to.equal(400);
    });
  });

  it('reads query values as form-encoding clients write them: + for a space, True for yes', async () => {
    await sut.call('POST', MODELS, { body: { name: 'two words', description: 'made by a script', is_default: true } });
    expect((await sut.call('GET', `${MODELS}?q=made+by`)).body.count).to.equal(1);
    expect((await sut.call('GET', `${MODELS}?name=two+words`)).body.count).to.equal(1);
    expect((await sut.call('GET', `${MODELS}?is_default=True`)).body.results.map((m: { name: string }) => m.name)).to.deep.equal([
      'two words',
    ]);
    expect((await sut.call('GET', `${MODELS}?is_default=0`)).body.count).to.equal(0);
    expect((await sut.call('GET', `${MODELS}?is_default=maybe`)).status).to.equal(400);
  });

  describe('url', () => {
    it("gives every full record its own API address as url, in lists, reads and writes' answers", async () => {
      const model = await sut.call('POST', MODELS, { body: { name: 'located-model' } });
      expect(model.body.url).to.equal(`${sut.baseUrl}${MODELS}${model.body.id}/`);
      expect((await sut.call('GET', pathOf(model.body.url))).body.name).to.equal('located-model');
      const patched = await sut.call('PATCH', pathOf(model.body.url), { body: { description: 'moved nowhere' } });
      expect(patched.body.url).to.equal(model.body.url);
      for (const list of [MODELS, SECRETS, STATUSES, SERVERS, TOKENS]) {
        const { results } = (await sut.call('GET', `${list}?limit=2`)).body as { results: { id: string; url: string }[] };
        for (const record of results) expect(record.url, list).to.equal(`${sut.baseUrl}${list}${record.id}/`);
      }
      const token = await sut.call('POST', TOKENS, { body: { user: 'located' } });
      expect(token.body.url).to.equal(`${sut.baseUrl}${TOKENS}${token.body.id}/`);
      await sut.call('DELETE', pathOf(model.body.url));
    });

    it("reads an MCP server's address as server_url, and takes it as url (the original contract) or server_url", async () => {
      const created = await sut.call('POST', SERVERS, { body: { name: 'addressed', url: 'http://127.0.0.1:9/' } });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ url: `${sut.baseUrl}${SERVERS}${created.body.id}/`, server_url: 'http://127.0.0.1:9/' });
      const byUrl = await sut.call('PATCH', `${SERVERS}${created.body.id}/`, { body: { url: 'http://127.0.0.1:10/' } });
      expect(byUrl.body.server_url).to.equal('http://127.0.0.1:10/');
      const byServerUrl = await sut.call('PATCH', `${SERVERS}${created.body.id}/`, { body: { server_url: 'http://127.0.0.1:11/' } });
      expect(byServerUrl.body.server_url).to.equal('http://127.0.0.1:11/');
      // A record read and sent back whole names both: server_url is the address, url (its API address) is left aside.
      const { name, server_url } = byServerUrl.body as { name: string; server_url: string };
      const roundTrip = await sut.call('PUT', `${SERVERS}${created.body.id}/`, { body: { name, url: created.body.url, server_url } });
      expect(roundTrip.status).to.equal(200);
      expect(roundTrip.body.server_url).to.equal('http://127.0.0.1:11/');
      expect((await sut.call('GET', `${SERVERS}?q=127.0.0.1:11`)).body.count).to.equal(1);
      expect((await sut.call('POST', SERVERS, { body: { name: 'no-address', server_url: '' } })).body).to.have.property('server_url');
      await sut.call('DELETE', `${SERVERS}${created.body.id}/`);
    });
  });

  describe('brief', () => {
    it('answers each record as {id, url, display, name}, its url reading the record', async () => {
      for (const flag of ['true', 'True', '1']) {
        const brief = await sut.call('GET', `${SECRETS}?brief=${flag}&limit=2`);
        expect(brief.status, flag).to.equal(200);
        expect(brief.body.results[0]).to.have.keys('id', 'url', 'display', 'name');
        expect(brief.body.results[0].url).to.equal(`${sut.baseUrl}${SECRETS}${brief.body.results[0].id}/`);
      }
      const [one] = (await sut.call('GET', `${STATUSES}?brief=true&name=Healthy`)).body.results;
      expect(one).to.deep.equal({ id: one.id, url: `${sut.baseUrl}${STATUSES}${one.id}/`, display: 'Healthy', name: 'Healthy' });
      expect((await sut.call('GET', pathOf(one.url))).body.name).to.equal('Healthy');
      expect((await sut.call('GET', `${SECRETS}?brief=false&limit=1`)).body.results[0]).to.have.property('provider');
      expect((await sut.call('GET', `${SECRETS}?brief=yes`)).status).to.equal(400);
    });

    it('answers tokens in brief, their url reading the token', async () => {
      const [token] = (await sut.call('GET', `${TOKENS}?brief=true&limit=1`)).body.results;
      expect(token).to.have.keys('id', 'url', 'display');
      const read = await sut.call('GET', pathOf(token.url));
      expect(read.status).to.equal(200);
      expect(read.body.display).to.equal(token.display);
    });
  });

  describe('OPTIONS', () => {
    it('describes the fields of a new record for a token that may create one', async () => {
      const described = await sut.call('OPTIONS', MODELS);
      expect(described.status).to.equal(200);
      expect(described.body).to.include({ name: 'List LLM models' });
      expect(described.body.renders).to.deep.equal(['application/json']);
      const post = described.body.actions.POST;
      expect(post.name).to.include({ type: 'string', required: true, read_only: false, label: 'Name', max_length: 255 });
      expect(post.temperature).to.include({ type: 'float', required: false, min_value: 0, max_value: 2 });
      expect(post.is_default).to.include({ type: 'boolean' });
      expect(post.model_config).to.include({ type: 'json' });
      expect(post.id).to.include({ read_only: true });
      expect(post.provider.type).to.equal('choice');
      expect(post.provider.choices[0]).to.deep.equal({ value: 'ollama', display_name: 'ollama', display: 'ollama' });
      const secret = await sut.call('OPTIONS', `${SECRETS}${(await sut.call('GET', SECRETS)).body.results[0].id}/`);
      expect(Object.keys(secret.body.actions)).to.deep.equal(['PUT']);
      expect(secret.body.actions.PUT.provider.choices.map((choice: { value: string }) => choice.value)).to.deep.equal([
        'environment-variable',
        'text-file',
      ]);
    });

    it('describes no write to a token that may not make it, nor on read-only statuses', async () => {
      const viewer = await sut.token({ permissions: ['ai_ops.view_llmmodel'] });
      expect((await sut.call('OPTIONS', MODELS, { key: viewer })).body).to.not.have.property('actions');
      const readOnly = await sut.token({ permissions: ['ai_ops.view_llmmodel', 'ai_ops.add_llmmodel'], writeEnabled: false });
      expect((await sut.call('OPTIONS', MODELS, { key: readOnly })).body).to.not.have.property('actions');
      const creator = await sut.token({ permissions: ['ai_ops.view_llmmodel', 'ai_ops.add_llmmodel'] });
      expect((await sut.call('OPTIONS', MODELS, { key: creator })).body.actions).to.have.property('POST');
      expect((await sut.call('OPTIONS', STATUSES)).body).to.not.have.property('actions');
      expect((await sut.call('OPTIONS', MODELS, { key: null })).status).to.equal(401);
      expect((await sut.call('OPTIONS', MODELS, { key: await sut.token({ permissions: ['extras.view_status'] }) })).status).to.equal(403);
      expect((await sut.call('OPTIONS', TOKENS, { key: creator })).status).to.equal(403);
    });
  });

  describe('the API root', () => {
    it('lists the parts of the API without a token, each part listing its endpoints', async () => {
      const root = await sut.call('GET', '/api/', { key: null });
      expect(root.status).to.equal(200);
      expect(root.headers.get('api-version')).to.equal('2.0');
      expect(root.body).to.deep.equal({
        docs: `${sut.baseUrl}/api/docs/`,
        extras: `${sut.baseUrl}/api/extras/`,
        plugins: `${sut.baseUrl}/api/plugins/`,
        status: `${sut.baseUrl}/api/status/`,
        users: `${sut.baseUrl}/api/users/`,
      });
      expect((await sut.call('GET', '/api/extras/')).body).to.have.keys('secrets', 'statuses');
      expect((await sut.call('GET', '/api/plugins/')).body).to.deep.equal({ 'ai-ops': `${sut.baseUrl}/api/plugins/ai-ops/` });
      const aiOps = (await sut.call('GET', '/api/plugins/ai-ops/')).body as Record<string, string>;
      expect(aiOps).to.include.keys('llm-models', 'mcp-servers', 'audit-log');
      expect((await sut.call('GET', '/api/users/')).body).to.deep.equal({ tokens: `${sut.baseUrl}${TOKENS}` });
      for (const link of Object.values(aiOps)) expect((await sut.call('GET', pathOf(link))).status, link).to.be.oneOf([200, 409]);
      expect((await sut.call('GET', '/api/extras/', { key: null })).status).to.equal(401);
    });
  });

  describe('/api/status/', () => {
    it("says the versions, Redis's state and the workers of each queue, which a starting worker joins", async () => {
      const status = await sut.call('GET', '/api/status/');
      expect(status.status).to.equal(200);
      expect(status.body).to.include({ 'aiops-version': 'test', 'api-version': '2.0', 'node-version': process.versions.node, redis: 'ok' });
      expect(status.body['redis-version']).to.match(/^\d+\.\d+/);
      expect(status.body['workers-running']).to.deep.equal({ chat: 0, health: 0, index: 0 });
      expect((await sut.call('GET', '/api/status/', { key: null })).status).to.equal(401);

      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'aiops-status-worker-'));
      const workers = await startWorkers(
        loadConfig({ REDIS_URL: sut.redis.url, REDIS_KEY_PREFIX: sut.keyPrefix, DATA_DIR: dataDir, EMBEDDING_MODEL: 'none' }),
        silentLogger(),
        { queues: [QueueName.Health] },
      );
      try {
        await workers.ready();
        await until(
          async () => (await sut.call('GET', '/api/status/')).body['workers-running'].health === 1,
          10_000,
          'the health worker to be seen',
        );
        expect((await sut.call('GET', '/api/status/')).body['workers-running']).to.include({ chat: 0, index: 0 });
      } finally {
        await workers.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('API-Version', () => {
    it('names the version on every answer of the API, and only there', async () => {
      expect((await sut.call('GET', MODELS)).headers.get('api-version')).to.equal('2.0');
      expect((await sut.call('GET', MODELS, { key: null })).headers.get('api-version')).to.equal('2.0');
      expect((await sut.call('GET', '/plugins/ai-ops/api/chat/models/')).headers.get('api-version')).to.equal('2.0');
      expect((await sut.call('GET', '/status')).headers.get('api-version')).to.equal(null);
    });

    it('serves a client that asks for this version, and answers 406 to one that asks for another', async () => {
      const asked = await sut.call('POST', MODELS, {
        body: { name: 'versioned' },
        headers: { accept: 'application/json; version=2.0' },
      });
      expect(asked.status).to.equal(201);
      for (const accept of ['application/json; version=1.3', 'application/json;version="2.1"', 'text/html, application/json; version=9']) {
        const refused = await sut.call('GET', MODELS, { headers: { accept } });
        expect(refused.status, accept).to.equal(406);
        expect(refused.body.detail, accept).to.match(/^Invalid version in "Accept" header: .+\. This API speaks version 2\.0\.$/);
      }
      expect((await sut.call('GET', MODELS, { headers: { accept: 'application/json' } })).status).to.equal(200);
    });
  });
});
