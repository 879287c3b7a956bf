import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { ENUMS } from '../../src/api/openapi-types.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { sendRaw, type BodyFraming } from '../support/http.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';

describe('HTTP error handling', () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut.close();
  });

  function expectNoStack(body: unknown): void {
    expect(JSON.stringify(body)).to.not.match(/at .+\.(ts|js):\d+|node_modules|Error:/);
  }

  it('answers malformed JSON with 400 and a detail', async () => {
    const response = await sut.call('POST', MODELS, { body: '{"name": "x",' });
    expect(response.status).to.equal(400);
    expect(response.body.detail).to.match(/^JSON parse error/);
    expectNoStack(response.body);
  });

  it('answers a JSON body that is not an object with 400, saying what it got', async () => {
    for (const [body, got] of [
      ['"just a string"', 'a string'],
      ['null', 'null'],
      ['5', 'a number'],
    ]) {
      const response = await sut.call('POST', MODELS, { body });
      expect(response.status, body).to.equal(400);
      expect(response.body, body).to.deep.equal({ non_field_errors: [`Invalid data. Expected a JSON object, but got ${got}.`] });
    }
    const list = await sut.call('PATCH', `${MODELS}${randomUUID()}/`, { body: '[1, 2]' });
    expect(list.status).to.equal(400);
    expect(list.body).to.deep.equal({ non_field_errors: ['Expected a JSON object.'] });
    // A list of records is written at once on the list's path: each item is answered in its place.
    const items = await sut.call('POST', MODELS, { body: '[1, {"name": "fine"}]' });
    expect(items.status).to.equal(400);
    expect(items.body).to.deep.equal([{ non_field_errors: ['Expected a JSON object.'] }, {}]);
  });

  it('says each thing wrong with a field once', async () => {
    expect((await sut.call('POST', '/plugins/ai-ops/api/chat/', { body: { message: '' } })).body).to.deep.equal({
      message: ['This field may not be blank.'],
    });
  });

  it("says in the platform API's words what a field's type, choices, bounds or presence ask for", async () => {
    const response = await sut.call('POST', MODELS, {
      body: { provider: 'nope', temperature: 'hot', is_default: 'maybe', model_config: [] },
    });
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({
      name: ['This field is required.'],
      provider: [`Not a valid choice; choose one of: ${ENUMS.LLMProvider.join(', ')}.`],
      temperature: ['A valid number is required.'],
      is_default: ['Must be a valid boolean.'],
      model_config: ['Expected a JSON object.'],
    });
    expect((await sut.call('POST', MODELS, { body: { name: 'x'.repeat(256) } })).body).to.deep.equal({
      name: ['Ensure this field has no more than 255 characters.'],
    });
    expect((await sut.call('POST', MODELS, { body: { name: 'hot', temperature: 3 } })).body).to.deep.equal({
      temperature: ['Ensure this value is less than or equal to 2.'],
    });
    // Every process keeps every model in memory: its generation options stay small.
    const padded = await sut.call('POST', MODELS, { body: { name: 'padded', model_config: { pad: 'x'.repeat(20_000) } } });
    expect(padded.body).to.deep.equal({ model_config: ['Ensure model_config has no more than 16384 characters as JSON.'] });
    const wide = await sut.call('POST', MODELS, {
      body: { name: 'wide', model_config: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) },
    });
    expect(wide.body).to.deep.equal({ model_config: ['Ensure this object has no more than 64 keys.'] });
  });

  it('answers every write that needs a body with 400 and changes nothing when the body is missing or empty', async () => {
    const model = (await sut.call('POST', MODELS, { body: { name: 'bodiless-target' } })).body.id as string;
    const server = (
      await sut.call('POST', '/api/plugins/ai-ops/mcp-servers/', { body: { name: 'bodiless-server', url: 'http://127.0.0.1:9/' } })
    ).body.id as string;
    const secret = (
      await sut.call('POST', '/api/extras/secrets/', {
        body: { name: 'bodiless-secret', provider: 'environment-variable', parameters: { variable: 'X' } },
      })
    ).body.id as string;
    const idOf: Record<string, string> = { 'llm-models': model, 'mcp-servers': server, secrets: secret };
    const snapshot = async () =>
      JSON.stringify(
        await Promise.all(
          [MODELS, '/api/plugins/ai-ops/mcp-servers/', '/api/extras/secrets/', '/api/plugins/ai-ops/kb/repos/'].map(
            async (path) => (await sut.call('GET', path)).body,
          ),
        ),
      );
    const before = await snapshot();
    const writes = Object.entries(loadOpenApiDocument().paths).flatMap(([path, item]) =>
      (['post', 'put', 'patch', 'delete'] as const)
        .filter((method) => (item?.[method]?.requestBody as { required?: boolean } | undefined)?.required === true)
        .map((method) => ({
          method: method.toUpperCase(),
          path: path.replace('{id}', idOf[path.split('/').at(-3)!] ?? 'missing').replace(/\{[^}]+\}/g, randomUUID()),
        })),
    );
    expect(writes.length).to.be.at.least(11);
    for (const { method, path } of writes) {
      for (const framing of ['none', 'length', 'chunked'] as BodyFraming[]) {
        const headers = { authorization: `Token ${sut.adminKey}`, 'content-type': 'application/json' };
        const response = await sendRaw(sut.baseUrl + path, method, { headers, body: '', framing });
        expect(response.status, `${method} ${path} (${framing}): ${response.text}`).to.equal(400);
        expect(Object.values(JSON.parse(response.text) as Record<string, unknown>).every(Array.isArray), response.text).to.equal(true);
      }
    }
    expect(await snapshot()).to.equal(before);
  });

  it('answers a body over 1 MiB with 413', async () => {
    const response = await sut.call('POST', MODELS, { body: { name: 'big', description: 'x'.repeat(1024 * 1024 + 10) } });
    expect(response.status).to.equal(413);
    expect(response.body.detail).to.match(/1 MiB/);
  });

  it('answers a wrong content type with 415', async () => {
    const response = await sut.call('POST', MODELS, { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.status).to.equal(415);
    expect(response.body).to.have.property('detail');
    expect((await sut.call('POST', MODELS, { body: '<x/>', headers: { 'content-type': 'text/xml' } })).status).to.equal(415);
  });

  it('answers an unknown id, a non-UUID id and an unknown path with 404', async () => {
    expect((await sut.call('GET', `${MODELS}00000000-0000-4000-8000-000000000000/`)).status).to.equal(404);
    const notUuid = await sut.call('GET', `${MODELS}not-a-uuid/`);
    expect(notUuid.status).to.equal(404);
    expect(notUuid.body).to.deep.equal({ detail: 'Not found.' });
    expect((await sut.call('PATCH', `${MODELS}42/`, { body: {} })).status).to.equal(404);
    expect((await sut.call('PATCH', `${MODELS}42/`, { body: { unknown: 1, temperature: 'hot' } })).status).to.equal(404);
    expect((await sut.call('GET', '/api/plugins/ai-ops/nothing-here/')).status).to.equal(404);
    expect((await sut.call('GET', '/api/plugins/ai-ops/nothing-here')).body).to.deep.equal({ detail: 'Not found.' });
  });

  it('says in words what a pattern or a required length asks for, never the regular expression', async () => {
    const response = await sut.call('POST', MODELS, { body: { name: '   ', hosted_endpoint: 'localhost:11434' } });
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({
      name: ['This field may not be blank.'],
      hosted_endpoint: ['Enter a URL that starts with http:// or https://.'],
    });
  });

  it('says that API paths end with a slash when only the slash is missing', async () => {
    for (const [method, path] of [
      ['GET', MODELS.slice(0, -1)],
      ['POST', '/plugins/ai-ops/api/chat'],
      ['GET', `${MODELS}00000000-0000-4000-8000-000000000000`],
    ] as const) {
      const response = await sut.call(method, path, method === 'POST' ? { body: { message: 'hi' } } : {});
      expect(response.status, path).to.equal(404);
      expect(response.body, path).to.deep.equal({ detail: `Not found. API paths end with a slash: ${path}/` });
    }
  });

  it('answers an unsupported method with 405', async () => {
    const response = await sut.call('DELETE', '/api/extras/statuses/');
    expect(response.status).to.equal(405);
    expect(response.body).to.deep.equal({ detail: 'Method "DELETE" not allowed.' });
    expect((await sut.call('PUT', '/api/extras/statuses/')).status).to.equal(405);
  });

  it('never answers 5xx to odd but well-formed input', async () => {
    const odd = [
      { name: '\u0000\u202e', description: '😀'.repeat(60) },
      { name: 'x'.repeat(256) },
      { name: 'nested', model_config: { deep: { deeper: [1, { a: null }] } } },
      { name: '   ' },
      { name: 'n', temperature: 1e308 },
      { name: 'n', is_default: 'yes' },
      { name: ['array'] },
      { name: null },
      {},
      JSON.parse('{"name": "proto", "__proto__": {"x": 1}, "constructor": 1, "valueOf": 2}'),
    ];
    for (const body of odd) {
      const response = await sut.call('POST', MODELS, { body });
      expect(response.status, JSON.stringify(body).slice(0, 60)).to.be.oneOf([201, 400]);
      expectNoStack(response.body);
    }
    for (const query of [
      '?valueOf=1',
      '?__proto__=1',
      '?constructor=x',
      '?limit=abc',
      '?offset=1.5',
      '?is_default=maybe',
      '?q=' + 'z'.repeat(500),
      '?limit=10&limit=20',
      '?%zz=1',
    ]) {
      const response = await sut.call('GET', MODELS + query);
      expect(response.status, query).to.be.oneOf([200, 400]);
    }
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const echoed = await sut.call('GET', '/status', { headers: { 'x-request-id': 'req-123' } });
    expect(echoed.headers.get('x-request-id')).to.equal('req-123');
    const generated = await sut.call('GET', '/status', { headers: { 'x-request-id': 'bad id with spaces\t' } });
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
