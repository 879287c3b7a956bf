import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';
import { callApi, type JsonReply } from '../support/http.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const SECRETS = '/api/extras/secrets/';
const STATUSES = '/api/extras/statuses/';
const TOKENS = '/api/users/tokens/';
const API_VERSION = '2.0';

/**
 * The list endpoint pynautobot 3.x's Record takes a record to belong to, from its `url`
 * (`Record._endpoint_from_url`): `/api/plugins/<app>/<name>/<id>/` or `/api/<app>/<name>/<id>/`.
 * A `url` with fewer parts (a server's own address, say) raises IndexError there.
 */
function endpointOf(url: string): string {
  const parts = new URL(url).pathname.split('/');
  if (parts.length < 4) throw new Error(`IndexError: pynautobot cannot read ${url} as a record's address`);
  const [app, name] = parts[2] === 'plugins' ? [parts.slice(2, 4).join('/'), parts.slice(4, -2).join('/')] : [parts[2], parts[3]];
  return `/api/${app}/${name}/`;
}

/**
 * The requests pynautobot (Nautobot's own SDK, 2.x and 3.x, `Api(url, token, api_version="2.0")`) makes,
 * header for header, since it cannot be installed here: `Authorization: Token <key>` and `Accept:
 * application/json; version=<api_version>` on every call; `Content-Type: application/json;` (with
 * its trailing semicolon) on POST, PUT and a DELETE with a body; PATCH's body typed by requests'
 * `json=`; filters, `limit` and `offset` form-encoded in the query (a space as `+`, True as
 * `True`); the `next` link followed as the API wrote it.
 */
function pynautobot(sut: TestApi, { token = sut.adminKey, apiVersion = API_VERSION }: { token?: string | null; apiVersion?: string } = {}) {
  return (method: string, pathOrUrl: string, { body, params }: { body?: unknown; params?: Record<string, string> } = {}) => {
    const headers: Record<string, string> =
      method === 'POST' || method === 'PUT' || (method === 'DELETE' && body !== undefined)
        ? { 'content-type': 'application/json;' }
        : { accept: 'application/json;', ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    headers.accept = `application/json; version=${apiVersion}`;
    const url = new URL(pathOrUrl, sut.baseUrl);
    for (const [name, value] of Object.entries(params ?? {})) url.searchParams.append(name, value);
    return callApi(sut.baseUrl, method, url.pathname + url.search, { key: token, headers, body });
  };
}

describe("records API: the calls and headers of pynautobot (Nautobot's SDK)", () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi(undefined, { MAX_PAGE_SIZE: '20' });
  });
  after(async () => {
    await sut.close();
  });

  it('answers the version check of Api() with API-Version 2.0 or later, with or without a token', async () => {
    for (const token of [sut.adminKey, null]) {
      const root = await pynautobot(sut, { token })('GET', '/api/');
      expect(root.status).to.equal(200);
      // pynautobot 2 refuses a server whose API-Version is below 2.0 ("Nautobot version 1 detected").
      const [major] = (root.headers.get('api-version') ?? '').split('.').map(Number);
      expect(major).to.be.at.least(2);
    }
    const status = await pynautobot(sut)('GET', '/api/status/');
    expect(status.status).to.equal(200);
    expect(status.body['api-version']).to.equal(API_VERSION);
  });

  it('answers 406 to an api_version this API does not speak, as Nautobot does', async () => {
    const other = await pynautobot(sut, { apiVersion: '2.1' })('GET', MODELS);
    expect(other.status).to.equal(406);
    expect(other.body.detail).to.match(/^Invalid version in "Accept" header/);
  });

  it('creates, reads, filters, pages, updates and deletes as its Endpoint and Record do', async () => {
    const call = pynautobot(sut);
    // create([...]) of at most MAX_PAGE_SIZE records, twice.
    const names = Array.from({ length: 30 }, (_, i) => `naut-${String(i).padStart(2, '0')}`);
    const created: { id: string }[] = [];
    for (const chunk of [names.slice(0, 15), names.slice(15)]) {
      const answer = await call('POST', MODELS, { body: chunk.map((name) => ({ name, description: 'made by nautobot sdk' })) });
      expect(answer.status).to.equal(201);
      created.push(...(answer.body as { id: string }[]));
    }

    // all(): limit=0, then what the first page leaves through pynautobot's own follow-up and the next links.
    const first = await call('GET', MODELS, { params: { limit: '0' } });
    expect(first.body.results).to.have.length(20);
    const rest = await call('GET', MODELS, { params: { limit: String(first.body.count), offset: String(first.body.results.length) } });
    expect(rest.body.results).to.have.length(10);
    expect(rest.body.next).to.equal(null);
    const pages: JsonReply[] = [await call('GET', MODELS, { params: { limit: '10' } })];
    while (pages.at(-1)!.body.next) pages.push(await call('GET', pages.at(-1)!.body.next as string));
    expect(pages.flatMap((page) => page.body.results.map((model: { name: string }) => model.name))).to.have.length(30);

    // get(name=...), filter(q=...), filter(brief=True), count().
    const byName = await call('GET', MODELS, { params: { name: 'naut-07', limit: '0' } });
    expect(byName.body.results.map((model: { id: string }) => model.id)).to.deep.equal([created[7]!.id]);
    expect((await call('GET', MODELS, { params: { q: 'made by nautobot', limit: '1' } })).body.count).to.equal(30);
    const brief = await call('GET', MODELS, { params: { brief: 'True', limit: '1' } });
    expect(brief.body.results[0]).to.have.keys('id', 'url', 'display', 'name');

    // Record.save() and update([...]): PATCH one record, then a list of {id, ...changes}.
    expect((await call('PATCH', `${MODELS}${created[0]!.id}/`, { body: { temperature: 1 } })).body.temperature).to.equal(1);
    const updated = await call('PATCH', MODELS, {
      body: created.slice(0, 3).map(({ id }) => ({ id, description: 'updated by nautobot sdk' })),
    });
    expect(updated.status).to.equal(200);
    expect(updated.body.map((model: { description: string }) => model.description)).to.deep.equal(Array(3).fill('updated by nautobot sdk'));

    // choices(): OPTIONS, the choices of each field as {value, display}.
    const options = await call('OPTIONS', MODELS);
    expect(
      options.body.actions.POST.provider.choices.map(({ value, display }: { value: string; display: string }) => [value, display]),
    ).to.deep.include(['openai', 'openai']);

    // Record.delete() and delete([...]): DELETE one record, then a list of {"id": ...}.
    expect((await call('DELETE', `${MODELS}${created[29]!.id}/`)).status).to.equal(204);
    for (const chunk of [created.slice(0, 20), created.slice(20, 29)]) {
      expect((await call('DELETE', MODELS, { body: chunk.map(({ id }) => ({ id })) })).status).to.equal(204);
    }
    expect((await call('GET', MODELS, { params: { limit: '1' } })).body.count).to.equal(0);
  });

  it("finds every record's endpoint and details from its url, as Record does, on every record kind", async () => {
    const call = pynautobot(sut);
    // An MCP server's address is written as `url`, as the original app's clients do, and read as `server_url`.
    const server = await call('POST', SERVERS, { body: { name: 'naut-server', url: 'http://127.0.0.1:9/' } });
    expect(server.status).to.equal(201);
    expect(server.body.server_url).to.equal('http://127.0.0.1:9/');
    const model = (await call('POST', MODELS, { body: { name: 'naut-located' } })).body as { url: string };
    const token = (await call('POST', TOKENS, { body: { user: 'naut-user' } })).body as { url: string };
    const [secret] = (await call('POST', SECRETS, { body: [{ name: 'naut-secret', provider: 'text-file', parameters: { path: '/x' } }] }))
      .body as { url: string }[];
    const [status] = (await call('GET', STATUSES, { params: { name: 'Healthy', limit: '0' } })).body.results as { url: string }[];
    const records: [string, { url: string }][] = [
      [SERVERS, server.body as { url: string }],
      [MODELS, model],
      [TOKENS, token],
      [SECRETS, secret!],
      [STATUSES, status!],
    ];
    for (const [list, record] of records) {
      expect(endpointOf(record.url), record.url).to.equal(list);
      // full_details(): GET on the url itself.
      const details = await call('GET', record.url);
      expect(details.status, record.url).to.equal(200);
      expect(details.body.url).to.equal(record.url);
    }
    // Record.save() after `server.server_url = ...`: a PATCH of that field on endpoint.url + id; delete() likewise.
    const moved = await call('PATCH', `${endpointOf(server.body.url)}${server.body.id}/`, { body: { server_url: 'http://127.0.0.1:10/' } });
    expect(moved.body.server_url).to.equal('http://127.0.0.1:10/');
    for (const [list, record] of records.slice(0, 4)) {
      expect((await call('DELETE', `${list}${(record as unknown as { id: string }).id}/`)).status, list).to.equal(204);
    }
  });

  it('reads errors as its RequestError does: the status and the JSON body', async () => {
    const call = pynautobot(sut);
    const refused = await call('POST', MODELS, { body: [{ name: 'fine' }, { name: 'hot', temperature: 5 }] });
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.equal([{}, { temperature: ['Ensure this value is less than or equal to 2.'] }]);
    const forbidden = await pynautobot(sut, { token: await sut.token({ permissions: ['ai_ops.view_llmmodel'] }) })('POST', MODELS, {
      body: [{ name: 'not-mine' }],
    });
    expect(forbidden.status).to.equal(403);
    expect(forbidden.body).to.deep.equal({ detail: 'You do not have permission to perform this action (needs ai_ops.add_llmmodel).' });
  });
});
