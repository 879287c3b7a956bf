import { expect } from 'chai';
import type { McpServerRecord } from '../../src/records/mcp-server.js';
import { startTestApi, type TestApi } from '../support/api.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const SECRETS = '/api/extras/secrets/';
const STATUSES = '/api/extras/statuses/';

describe('records API', () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut.close();
  });

  describe('llm-models', () => {
    it('creates with defaults, reads, patches, replaces and deletes', async () => {
      const created = await sut.call('POST', MODELS, { body: { name: 'crud-model', model_secret_key: 'openai-key', provider: 'openai' } });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({
        name: 'crud-model',
        provider: 'openai',
        temperature: 0,
        is_default: false,
        model_secret_key: 'openai-key',
      });
      const id = created.body.id as string;

      const detail = await sut.call('GET', `${MODELS}${id}/`);
      expect(detail.status).to.equal(200);
      expect(detail.body.model_secret_key).to.equal('openai-key');

      const patched = await sut.call('PATCH', `${MODELS}${id}/`, { body: { temperature: 1.5, model_config: { max_tokens: 512 } } });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ temperature: 1.5, provider: 'openai', name: 'crud-model' });
      expect(patched.body.model_config).to.deep.equal({ max_tokens: 512 });
      expect(Date.parse(patched.body.last_updated)).to.be.at.least(Date.parse(created.body.last_updated));
      expect(patched.body.created).to.equal(created.body.created);

      const replaced = await sut.call('PUT', `${MODELS}${id}/`, { body: { name: 'crud-model-2' } });
      expect(replaced.status).to.equal(200);
      expect(replaced.body).to.include({ name: 'crud-model-2', provider: 'ollama', temperature: 0, model_secret_key: '' });

      expect((await sut.call('DELETE', `${MODELS}${id}/`)).status).to.equal(204);
      expect((await sut.call('GET', `${MODELS}${id}/`)).status).to.equal(404);
      expect((await sut.call('DELETE', `${MODELS}${id}/`)).status).to.equal(404);
    });

    it('never lists model_secret_key', async () => {
      await sut.call('POST', MODELS, { body: { name: 'secretive', model_secret_key: 'anthropic-key' } });
      const list = await sut.call('GET', `${MODELS}?name=secretive`);
      expect(list.body.count).to.equal(1);
      expect(list.body.results[0]).to.not.have.property('model_secret_key');
      expect(JSON.stringify(list.body)).to.not.include('anthropic-key');
    });

    it('keeps one default: a new default clears the previous one', async () => {
      const first = await sut.call('POST', MODELS, { body: { name: 'default-a', is_default: true } });
      const second = await sut.call('POST', MODELS, { body: { name: 'default-b', is_default: true } });
      expect(second.body.is_default).to.equal(true);
      expect((await sut.call('GET', `${MODELS}${first.body.id}/`)).body.is_default).to.equal(false);
      const defaults = await sut.call('GET', `${MODELS}?is_default=true`);
      expect(defaults.body.results.map((model: { name: string }) => model.name)).to.deep.equal(['default-b']);
      // The default comes first in an unfiltered list.
      const list = await sut.call('GET', `${MODELS}?limit=1000`);
      expect(list.body.results[0].name).to.equal('default-b');
      // PATCH without is_default leaves the flag alone; is_default false gives it up.
      await sut.call('PATCH', `${MODELS}${second.body.id}/`, { body: { description: 'still default' } });
      expect((await sut.call('GET', `${MODELS}${second.body.id}/`)).body.is_default).to.equal(true);
      await sut.call('PATCH', `${MODELS}${second.body.id}/`, { body: { is_default: false } });
      expect((await sut.call('GET', `${MODELS}?is_default=true`)).body.count).to.equal(0);
    });

    it('rejects a duplicate name, also on rename', async () => {
      await sut.call('POST', MODELS, { body: { name: 'unique-one' } });
      const duplicate = await sut.call('POST', MODELS, { body: { name: 'unique-one' } });
      expect(duplicate.status).to.equal(400);
      expect(duplicate.body.name[0]).to.match(/already exists/);
      const other = await sut.call('POST', MODELS, { body: { name: 'unique-two' } });
      const rename = await sut.call('PATCH', `${MODELS}${other.body.id}/`, { body: { name: 'unique-one' } });
      expect(rename.status).to.equal(400);
      expect(rename.body).to.have.property('name');
      // The old name is still taken by the record that kept it, and the renamed one is unchanged.
      expect((await sut.call('GET', `${MODELS}${other.body.id}/`)).body.name).to.equal('unique-two');
      // A successful rename frees the old name.
      await sut.call('PATCH', `${MODELS}${other.body.id}/`, { body: { name: 'unique-three' } });
      expect((await sut.call('POST', MODELS, { body: { name: 'unique-two' } })).status).to.equal(201);
    });

    it('validates every field with per-field messages', async () => {
      const bad = await sut.call('POST', MODELS, {
        body: { name: 'bad', temperature: 2.5, provider: 'skynet', hosted_endpoint: 'ftp://x', unknown_field: 1 },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body).to.have.keys('temperature', 'provider', 'hosted_endpoint', 'unknown_field');
      expect(bad.body.unknown_field).to.deep.equal(['This field is not allowed.']);
      expect((await sut.call('POST', MODELS, { body: { temperature: 1 } })).body).to.have.property('name');
      expect((await sut.call('POST', MODELS, { body: { name: 'neg', temperature: -0.1 } })).status).to.equal(400);
      expect((await sut.call('POST', MODELS, { body: { name: 'typed', temperature: 'hot' } })).body).to.have.property('temperature');
      expect((await sut.call('POST', MODELS, { body: { name: 'read-only', id: 'x' } })).status).to.equal(400);
      const edge = await sut.call('POST', MODELS, {
        body: { name: 'edge', temperature: 2, hosted_endpoint: 'https://llm.example.test/v1' },
      });
      expect(edge.status).to.equal(201);
    });

    it('filters by provider and q, and pages with next/previous links', async () => {
      for (let i = 0; i < 5; i++)
        await sut.call('POST', MODELS, { body: { name: `page-${i}`, provider: 'anthropic', description: 'paging' } });
      const first = await sut.call('GET', `${MODELS}?provider=anthropic&limit=2`);
      expect(first.body.count).to.equal(5);
      expect(first.body.results.map((m: { name: string }) => m.name)).to.deep.equal(['page-0', 'page-1']);
      expect(first.body.previous).to.equal(null);
      const second = await sut.call('GET', new URL(first.body.next).pathname + new URL(first.body.next).search);
      expect(second.body.results.map((m: { name: string }) => m.name)).to.deep.equal(['page-2', 'page-3']);
      expect(second.body.previous).to.be.a('string');
      expect((await sut.call('GET', `${MODELS}?q=PAGING`)).body.count).to.equal(5);
      expect((await sut.call('GET', `${MODELS}?limit=-1`)).status).to.equal(400);
      expect((await sut.call('GET', `${MODELS}?offset=-1`)).status).to.equal(400);
      expect((await sut.call('GET', `${MODELS}?provider=skynet`)).status).to.equal(400);
      expect((await sut.call('GET', `${MODELS}?colour=blue`)).body).to.have.property('colour');
    });
  });

  describe('mcp-servers', () => {
    it('starts Unknown, accepts status by name or id, and reads it as an object', async () => {
      const created = await sut.call('POST', SERVERS, { body: { name: 'nautobot-mcp', url: 'http://127.0.0.1:9/' } });
      expect(created.status).to.equal(201);
      expect(created.body.status.name).to.equal('Unknown');
      expect(created.body).to.include({
        protocol: 'http',
        mcp_endpoint: '/mcp',
        health_check: '',
        mcp_type: 'internal',
        approval: 'writes',
        last_check_method: null,
      });
      expect(created.body).to.include({ last_checked: null, last_error: null, latency_ms: null });

      const maintenance = await sut.call('PATCH', `${SERVERS}${created.body.id}/`, { body: { status: 'maintenance' } });
      expect(maintenance.body.status.name).to.equal('Maintenance');
      const healthy = (await sut.call('GET', `${STATUSES}?name=Healthy`)).body.results[0];
      const byId = await sut.call('PATCH', `${SERVERS}${created.body.id}/`, { body: { status: healthy.id } });
      expect(byId.body.status).to.deep.equal({ id: healthy.id, name: 'Healthy' });
      expect((await sut.call('GET', `${SERVERS}?status=Healthy`)).body.count).to.equal(1);
      expect((await sut.call('GET', `${SERVERS}?status=${healthy.id}`)).body.count).to.equal(1);
      expect((await sut.call('GET', `${SERVERS}?status=Unhealthy`)).body.count).to.equal(0);

      const bad = await sut.call('PATCH', `${SERVERS}${created.body.id}/`, { body: { status: 'Vulnerable' } });
      expect(bad.status).to.equal(400);
      expect(bad.body.status[0]).to.match(/Vulnerable/);
    });

    it('enforces the transport rules, enums and path shapes', async () => {
      const noUrl = await sut.call('POST', SERVERS, { body: { name: 'no-url' } });
      expect(noUrl.status).to.equal(400);
      expect(noUrl.body).to.have.property('url');
      const stdio = await sut.call('POST', SERVERS, {
        body: { name: 'local-stdio', protocol: 'stdio', command: 'node', args: ['server.js'] },
      });
      expect(stdio.status).to.equal(201);
      expect(stdio.body.args).to.deep.equal(['server.js']);
      const noCommand = await sut.call('PATCH', `${SERVERS}${stdio.body.id}/`, { body: { command: '' } });
      expect(noCommand.body).to.have.property('command');
      const bad = await sut.call('POST', SERVERS, {
        body: {
          name: 'bad',
          url: 'file:///etc/passwd',
          protocol: 'smoke',
          mcp_type: 'cosmic',
          approval: 'sometimes',
          health_check: 'health',
          mcp_endpoint: 'mcp',
          roots: [{ uri: 'https://example.com/repo' }],
        },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body).to.have.keys('url', 'protocol', 'mcp_type', 'approval', 'health_check', 'mcp_endpoint', 'roots.0.uri');
      const rooted = await sut.call('PATCH', `${SERVERS}${stdio.body.id}/`, {
        body: { roots: [{ uri: 'file:///srv/configs', name: 'configs' }] },
      });
      expect(rooted.body.roots).to.deep.equal([{ uri: 'file:///srv/configs', name: 'configs' }]);
      const always = await sut.call('PATCH', `${SERVERS}${stdio.body.id}/`, { body: { approval: 'always' } });
      expect(always.body.approval).to.equal('always');
    });

    it('filters by protocol, mcp_type and q (which also searches the url)', async () => {
      await sut.call('POST', SERVERS, { body: { name: 'ext-one', url: 'https://tools.example.test/', mcp_type: 'external' } });
      expect((await sut.call('GET', `${SERVERS}?mcp_type=external`)).body.results.map((s: { name: string }) => s.name)).to.deep.equal([
        'ext-one',
      ]);
      expect((await sut.call('GET', `${SERVERS}?protocol=stdio`)).body.count).to.equal(1);
      expect((await sut.call('GET', `${SERVERS}?q=tools.example`)).body.count).to.equal(1);
    });

    it('keeps health fields across a PUT', async () => {
      const created = await sut.call('POST', SERVERS, { body: { name: 'keeps-health', url: 'http://127.0.0.1:9/' } });
      const stored = await sut.records.mcpServers.load(created.body.id);
      const checked = { ...stored, last_checked: '2026-01-01T00:00:00.000Z', last_error: 'HTTP 503', latency_ms: 12 };
      expect(await sut.collection<McpServerRecord>('mcp-servers').swap(stored, checked)).to.equal('ok');
      const replaced = await sut.call('PUT', `${SERVERS}${created.body.id}/`, {
        body: { name: 'keeps-health', url: 'http://127.0.0.1:10/' },
      });
      expect(replaced.status).to.equal(200);
      expect(replaced.body.server_url).to.equal('http://127.0.0.1:10/');
      expect(replaced.body).to.include({ last_checked: '2026-01-01T00:00:00.000Z', last_error: 'HTTP 503', latency_ms: 12 });
    });
  });

  describe('statuses', () => {
    it('has the four seeded statuses, read-only', async () => {
      const list = await sut.call('GET', STATUSES);
      expect(list.body.results.map((s: { name: string }) => s.name)).to.deep.equal(['Healthy', 'Maintenance', 'Unhealthy', 'Unknown']);
      const one = list.body.results[0];
      expect((await sut.call('GET', `${STATUSES}${one.id}/`)).body.name).to.equal('Healthy');
      expect((await sut.call('POST', STATUSES, { body: { name: 'Vulnerable' } })).status).to.equal(405);
      expect((await sut.call('DELETE', `${STATUSES}${one.id}/`)).status).to.equal(405);
    });

    it('seeding again changes nothing', async () => {
      const before = (await sut.call('GET', STATUSES)).body.results;
      await Promise.all([sut.records.seed(), sut.records.seed()]);
      expect((await sut.call('GET', STATUSES)).body.results).to.deep.equal(before);
    });
  });

  describe('secrets', () => {
    it('stores where a value lives and never a value', async () => {
      const env = await sut.call('POST', SECRETS, {
        body: { name: 'openai-key', provider: 'environment-variable', parameters: { variable: 'OPENAI_API_KEY' } },
      });
      expect(env.status).to.equal(201);
      expect(env.body.parameters).to.deep.equal({ variable: 'OPENAI_API_KEY' });
      expect(env.body).to.not.have.property('value');
      const file = await sut.call('POST', SECRETS, {
        body: { name: 'hf-token', provider: 'text-file', parameters: { path: '/run/secrets/hf' } },
      });
      expect(file.status).to.equal(201);
      expect((await sut.call('GET', `${SECRETS}?provider=text-file`)).body.count).to.equal(1);
      expect((await sut.call('PATCH', `${SECRETS}${file.body.id}/`, { body: { description: 'HF' } })).body.description).to.equal('HF');
      expect((await sut.call('DELETE', `${SECRETS}${file.body.id}/`)).status).to.equal(204);
    });

    it('rejects parameters that do not fit the provider, and values', async () => {
      const wrong = await sut.call('POST', SECRETS, { body: { name: 'x1', provider: 'text-file', parameters: { variable: 'X' } } });
      expect(wrong.status).to.equal(400);
      expect(wrong.body).to.have.property('parameters');
      const relative = await sut.call('POST', SECRETS, {
        body: { name: 'x2', provider: 'text-file', parameters: { path: 'relative/file' } },
      });
      expect(relative.body).to.have.property('parameters');
      const badName = await sut.call('POST', SECRETS, {
        body: { name: 'x3', provider: 'environment-variable', parameters: { variable: 'A-B' } },
      });
      expect(badName.body).to.have.property('parameters');
      const value = await sut.call('POST', SECRETS, {
        body: { name: 'x4', provider: 'environment-variable', parameters: { variable: 'A' }, value: 'sk-123' },
      });
      expect(value.status).to.equal(400);
      expect(value.body).to.have.property('value');
      expect(JSON.stringify(value.body)).to.not.include('sk-123');
    });
  });
});
