import { expect } from 'chai';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { parseDescription } from '../../src/endpoint-search/endpoint-document.js';
import { OperationDescriber } from '../../src/endpoint-search/operation-schema.js';
import { HttpPlatformClient } from '../../src/platform/adapters/http-platform-client.adapter.js';
import type { ApiRequest } from '../../src/platform/platform.port.js';
import type { FieldChange, WritePlan } from '../../src/write-plans/write-plan.js';
import { WritePlanner } from '../../src/write-plans/write-planner.js';
import { startTestApi, type TestApi } from '../support/api.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const STATUSES = '/api/extras/statuses/';
const ADDRESS = 'http://127.0.0.1:9/';

const words = (changes: FieldChange[]) => changes.map(({ field, before, after }) => `${field}: ${before ?? ''} → ${after}`);

/** Plans against this service's own API, as the agent's platform when none is configured. */
describe('write plans on the service’s own API', function () {
  this.timeout(60_000);
  let api: TestApi;
  let sut: WritePlanner;
  let reader: HttpPlatformClient;

  before(async () => {
    api = await startTestApi();
    const operations = new OperationDescriber(parseDescription(loadOpenApiDocument()));
    sut = new WritePlanner({ operations: async () => operations, maxObjects: 25 });
    reader = new HttpPlatformClient({
      baseUrl: api.baseUrl,
      token: api.adminKey,
      verifyTls: true,
      timeoutMs: 10_000,
      maxResponseBytes: 1_000_000,
      readOnly: true,
    });
  });
  after(async () => {
    await api?.close();
  });

  const plan = (request: ApiRequest) => sut.plan(request, reader);
  /** Makes the planned write as the approver's call would, and answers the platform's reply. */
  const write = async ({ method, path, body }: ApiRequest) => api.call(method, path, { body });
  const created = async (path: string, body: Record<string, unknown>) => {
    const reply = await api.call('POST', path, { body });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body as Record<string, unknown> & { id: string };
  };

  describe('the body check agrees with the service', () => {
    /** Bodies the planner must find valid or not exactly as the service does; names are unique so none clashes. */
    const bodies = async (): Promise<Array<{ path: string; body: unknown }>> => {
      const unknown = (await api.call('GET', `${STATUSES}?name=Unknown`)).body.results[0].id as string;
      const models = [
        { name: 'ok-1' },
        { name: 'ok-2', provider: 'openai', temperature: 1.5, model_config: { max_tokens: 5 }, daily_token_budget: null },
        [{ name: 'ok-3' }, { name: 'ok-4', is_default: false }],
        {},
        { provider: 'openai' },
        { name: 'bad-provider', provider: 'gpt' },
        { name: 'bad-temperature', temperature: 3 },
        { name: 'bad-config', model_config: 'max_tokens=5' },
        { name: ' ' },
        { name: '' },
        { name: 'bad-field', colour: 'red' },
        [],
        [{ name: 'ok-in-bad-list' }, { provider: 'openai' }],
        { name: 'bad-endpoint', hosted_endpoint: 'ftp://models.example' },
        { name: 'bad-budget', daily_token_budget: 0 },
      ].map((body) => ({ path: MODELS, body }));
      const servers = [
        { name: 's-ok-1', url: ADDRESS },
        { name: 's-ok-2', url: ADDRESS, status: 'Maintenance', args: ['--verbose'], roots: [{ uri: 'file:///srv', name: 'srv' }] },
        { name: 's-ok-3', url: ADDRESS, status: 'maintenance' },
        { name: 's-ok-4', url: ADDRESS, status: unknown },
        { name: 's-broken', url: ADDRESS, status: 'Broken' },
        { name: 's-bad-protocol', url: ADDRESS, protocol: 'ftp' },
        { name: 's-bad-root', url: ADDRESS, roots: [{ name: 'no-uri' }] },
        { name: 's-bad-root-uri', url: ADDRESS, roots: [{ uri: 'http://not-a-file' }] },
        { name: 's-bad-root-key', url: ADDRESS, roots: [{ uri: 'file:///a', mode: 'ro' }] },
        { name: 's-bad-args', url: ADDRESS, args: '--verbose' },
        { url: ADDRESS },
        { name: 's-bad-approval', url: ADDRESS, approval: 'sometimes' },
        { name: 's-bad-endpoint', url: ADDRESS, mcp_endpoint: 'mcp' },
      ].map((body) => ({ path: SERVERS, body }));
      return [...models, ...servers];
    };

    it('every body planned as valid is accepted, every one planned with errors refused', async () => {
      const disagreements: string[] = [];
      let valid = 0;
      for (const { path, body } of await bodies()) {
        const planned = await plan({ method: 'POST', path, body });
        const reply = await write({ method: 'POST', path, body });
        const accepted = reply.status === 201;
        if (planned.errors.length === 0) valid++;
        if (accepted !== (planned.errors.length === 0))
          disagreements.push(
            `${JSON.stringify(body)}: planned ${JSON.stringify(planned.errors)}, answered ${reply.status} ${JSON.stringify(reply.body)}`,
          );
      }
      expect(disagreements).to.deep.equal([]);
      expect(valid).to.equal(7);
    });

    it('names a required field inside `oneOf: [allOf: [$ref, {required}], array]`, and a status by a name no status has, with the choices', async () => {
      const missing = await plan({ method: 'POST', path: MODELS, body: { provider: 'openai' } });
      expect(missing.errors).to.deep.equal([{ field: 'name', message: 'is required' }]);
      const inList = await plan({ method: 'POST', path: MODELS, body: [{ name: 'x' }, { provider: 'openai' }] });
      expect(inList.errors).to.deep.equal([{ field: '[1].name', message: 'is required' }]);
      const broken = await plan({ method: 'POST', path: SERVERS, body: { name: 'broken', url: ADDRESS, status: 'Broken' } });
      expect(broken.errors).to.have.length(1);
      expect(broken.errors[0]).to.include({ field: 'status', message: 'no status is called "Broken"' });
      expect(broken.errors[0]!.choices).to.include.members(['Healthy', 'Unhealthy', 'Unknown', 'Maintenance']);
      const byName = await plan({ method: 'POST', path: SERVERS, body: { name: 'named', url: ADDRESS, status: 'maintenance' } });
      expect(byName.errors).to.deep.equal([]);
      expect(words(byName.objects[0]!.changes)).to.include('status:  → Maintenance');
    });
  });

  describe('a plan follows the write’s semantics', () => {
    it('shows the keys a PATCH of an object field removes, and reads the write back as planned', async () => {
      const model = await created(MODELS, { name: 'configured', model_config: { a: 1, keep: 'x', max_tokens: 5 } });
      const request: ApiRequest = { method: 'PATCH', path: `${MODELS}${model.id}/`, body: { model_config: { a: 1 } } };
      const planned = await plan(request);
      expect(planned.summary).to.equal('Update LLM model configured');
      expect(planned.objects[0]!.effect).to.equal('update');
      expect(words(planned.objects[0]!.changes)).to.deep.equal([
        'model_config.a: 1 → 1',
        'model_config.keep: x → (removed)',
        'model_config.max_tokens: 5 → (removed)',
      ]);
      const reply = await write(request);
      expect(reply.body.model_config).to.deep.equal({ a: 1 });
      expect(await sut.readBack(planned, reply.body, reader)).to.deep.equal([]);

      const emptied = await plan({ method: 'PATCH', path: `${MODELS}${model.id}/`, body: { model_config: {} } });
      expect(words(emptied.objects[0]!.changes)).to.deep.equal(['model_config.a: 1 → (removed)']);
      expect(emptied.summary).to.not.contain('changes nothing');
    });

    it('shows every field a PUT resets to its default', async () => {
      const model = await created(MODELS, {
        name: 'victim',
        provider: 'openai',
        hosted_endpoint: 'http://127.0.0.1:9/v1',
        description: 'the one that works',
        temperature: 0.7,
        model_config: { max_tokens: 5 },
      });
      const request: ApiRequest = { method: 'PUT', path: `${MODELS}${model.id}/`, body: { name: 'victim' } };
      const planned = await plan(request);
      expect(planned.errors).to.deep.equal([]);
      expect(planned.summary).to.equal('Replace LLM model victim');
      const changed = planned.objects[0]!.changes.filter((change) => !change.unchanged);
      expect(words(changed)).to.deep.equal([
        'description: the one that works → (blank)',
        'provider: openai → ollama',
        'hosted_endpoint: http://127.0.0.1:9/v1 → (blank)',
        'temperature: 0.7 → 0',
        'model_config.max_tokens: 5 → (removed)',
      ]);
      const reply = await write(request);
      expect(reply.status).to.equal(200);
      expect(await sut.readBack(planned, reply.body, reader)).to.deep.equal([]);
    });

    it('shows the previous default losing its flag, and reads both back', async () => {
      const previous = await created(MODELS, { name: 'default-before', is_default: true });
      const next = await created(MODELS, { name: 'default-after' });
      const request: ApiRequest = { method: 'PATCH', path: `${MODELS}${next.id}/`, body: { is_default: true } };
      const planned = await plan(request);
      expect(planned.count).to.equal(2);
      expect(planned.summary).to.equal('Update LLM model default-after; also clears is_default on LLM model default-before');
      expect(planned.objects.map(({ display, changes }) => [display, words(changes)])).to.deep.equal([
        ['default-after', ['is_default: false → true']],
        ['default-before', ['is_default: true → false']],
      ]);
      expect(planned.notes).to.include('is_default moves: the write clears it on LLM model default-before');
      const reply = await write(request);
      expect(await sut.readBack(planned, reply.body, reader)).to.deep.equal([]);
      // Had the flag not moved, the read-back says so.
      await api.call('PATCH', `${MODELS}${previous.id}/`, { body: { is_default: true } });
      expect(await sut.readBack(planned, reply.body, reader)).to.deep.equal([
        'default-after: is_default is false, planned true',
        'default-before: is_default is true, planned false',
      ]);
    });

    it('reads back the whole object: a field the plan did not change that moved is named, a long one by its digest', async () => {
      const model = await created(MODELS, { name: 'watched', temperature: 0.5, system_prompt: 'Be brief. '.repeat(100) });
      const request: ApiRequest = { method: 'PATCH', path: `${MODELS}${model.id}/`, body: { description: 'watched closely' } };
      const planned = await plan(request);
      expect(planned.objects[0]!.kept).to.include({ temperature: 0.5, provider: 'ollama' });
      expect(planned.objects[0]!.kept!.system_prompt).to.match(/^sha256:[0-9a-f]{64}$/);
      const reply = await write(request);
      expect(await sut.readBack(planned, reply.body, reader)).to.deep.equal([]);
      await api.call('PATCH', `${MODELS}${model.id}/`, { body: { temperature: 1, system_prompt: 'Be thorough. '.repeat(100) } });
      const differences = await sut.readBack(planned, reply.body, reader);
      expect(differences).to.have.length(2);
      expect(differences[0]).to.equal('watched: temperature is 1, it was 0.5 and the plan did not change it');
      expect(differences[1]).to.match(/^watched: system_prompt is Be thorough\. .*, it was sha256:/);
    });

    it('plans a PATCH of an MCP server’s address as server_url, given as url or as server_url, and reads it back', async () => {
      const server = await created(SERVERS, { name: 'moved', url: ADDRESS });
      const path = `${SERVERS}${server.id}/`;
      for (const [body, address] of [
        [{ url: 'http://127.0.0.1:10/' }, 'http://127.0.0.1:10/'],
        [{ server_url: 'http://127.0.0.1:11/' }, 'http://127.0.0.1:11/'],
        [{ url: 'http://127.0.0.1:99/', server_url: 'http://127.0.0.1:12/' }, 'http://127.0.0.1:12/'],
      ] as const) {
        const before = (await api.call('GET', path)).body.server_url as string;
        const request: ApiRequest = { method: 'PATCH', path, body };
        const planned = await plan(request);
        expect(planned.errors).to.deep.equal([]);
        expect(words(planned.objects[0]!.changes), JSON.stringify(body)).to.deep.equal([`server_url: ${before} → ${address}`]);
        expect(planned.objects[0]!.kept).to.not.have.any.keys('url', 'server_url');
        const reply = await write(request);
        expect(reply.body.server_url).to.equal(address);
        expect(await sut.readBack(planned, reply.body, reader), JSON.stringify(body)).to.deep.equal([]);
      }
      const unchanged = await plan({ method: 'PATCH', path, body: { url: 'http://127.0.0.1:12/' } });
      expect(unchanged.summary).to.equal('Update MCP server moved (changes nothing)');
    });

    it('plans a PUT of an MCP server with its status reset to the default, resolved by name', async () => {
      const server = await created(SERVERS, { name: 'replaced', url: ADDRESS, status: 'Maintenance', description: 'kept?' });
      const request: ApiRequest = { method: 'PUT', path: `${SERVERS}${server.id}/`, body: { name: 'replaced', url: ADDRESS } };
      const planned = await plan(request);
      expect(planned.errors).to.deep.equal([]);
      expect(words(planned.objects[0]!.changes.filter((change) => !change.unchanged))).to.deep.equal([
        'status: Maintenance → Unknown',
        'description: kept? → (blank)',
        // A credential is never read into a plan, so its reset is shown, whatever it was.
        'oauth_client_secret_key: *** → ***',
      ]);
      expect(words(planned.objects[0]!.changes.filter((change) => change.field.endsWith('url')))).to.deep.equal([
        `server_url: ${ADDRESS} → ${ADDRESS}`,
      ]);
      expect(planned.notes.join(' ')).to.not.match(/\burl\b/);
      const reply = await write(request);
      expect(reply.status).to.equal(200);
      expect(await sut.readBack(planned, reply.body, reader)).to.deep.equal([]);

      const moved: ApiRequest = { method: 'PUT', path: request.path, body: { name: 'replaced', url: 'http://127.0.0.1:10/' } };
      const replanned = await plan(moved);
      expect(words(replanned.objects[0]!.changes.filter((change) => !change.unchanged))).to.deep.equal([
        'oauth_client_secret_key: *** → ***',
        `server_url: ${ADDRESS} → http://127.0.0.1:10/`,
      ]);
      const again = await write(moved);
      expect(again.body.server_url).to.equal('http://127.0.0.1:10/');
      expect(await sut.readBack(replanned, again.body, reader)).to.deep.equal([]);
    });
  });

  it('writes nothing while planning, a create that moves the default included', async () => {
    const before = (await api.call('GET', `${MODELS}?limit=0`)).body.count as number;
    const planned: WritePlan = await plan({ method: 'POST', path: MODELS, body: { name: 'never-written', is_default: true } });
    expect(planned.errors).to.deep.equal([]);
    expect((await api.call('GET', `${MODELS}?limit=0`)).body.count).to.equal(before);
  });
});
