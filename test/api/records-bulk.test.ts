import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ENUMS } from '../../src/api/openapi-types.js';
import type { Permission } from '../../src/records/auth/permissions.js';
import { startTestApi, type TestApi } from '../support/api.js';
import type { JsonReply } from '../support/http.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const SECRETS = '/api/extras/secrets/';
const MAX_PAGE_SIZE = 10;
/** Reachable by anyone here: the harness allows loopback (OUTBOUND_ALLOW), as an operator may allow an internal range. */
const ALLOWED_URL = 'http://127.0.0.1:9/v1';

/** The parts of an answer a client reads: its status and body. */
const answer = ({ status, body }: JsonReply) => ({ status, body: body as unknown });

describe('records API: bulk writes, all or nothing', () => {
  let sut: TestApi;
  /** Every record of the three writable kinds as stored, to show that a refused list changed nothing. */
  const snapshot = async () =>
    Promise.all([MODELS, SERVERS, SECRETS].map(async (path) => (await sut.call('GET', `${path}?limit=0`)).body.results as unknown[]));
  const names = async (path: string) =>
    ((await sut.call('GET', `${path}?limit=0`)).body.results as { name: string }[]).map((record) => record.name).sort();

  before(async () => {
    sut = await startTestApi(undefined, { MAX_PAGE_SIZE: String(MAX_PAGE_SIZE), SECRET_ENV_ALLOW: 'ALLOWED_VAR' });
  });
  after(async () => {
    await sut.close();
  });

  describe('create', () => {
    it('creates every record of a list body and answers them in its order', async () => {
      const created = await sut.call('POST', MODELS, {
        body: [{ name: 'bulk-b', provider: 'openai' }, { name: 'bulk-a', is_default: true }, { name: 'bulk-c' }],
      });
      expect(created.status).to.equal(201);
      expect(created.body.map((model: { name: string; is_default: boolean }) => [model.name, model.is_default])).to.deep.equal([
        ['bulk-b', false],
        ['bulk-a', true],
        ['bulk-c', false],
      ]);
      expect((await sut.call('GET', `${MODELS}?is_default=true`)).body.results[0].id).to.equal(created.body[1].id);
      await sut.call('DELETE', MODELS, { body: created.body.map(({ id }: { id: string }) => ({ id })) });
    });

    it("creates nothing when an item breaks a rule, answering each item's problems in the list's order", async () => {
      await sut.call('POST', MODELS, { body: { name: 'stored-one' } });
      const before = await snapshot();
      const schema = await sut.call('POST', MODELS, { body: [{ name: 'fine' }, { name: 'bad', provider: 'skynet', colour: 1 }, {}] });
      expect(schema.status).to.equal(400);
      expect(schema.body).to.deep.equal([
        {},
        {
          provider: [`Not a valid choice; choose one of: ${ENUMS.LLMProvider.join(', ')}.`],
          colour: ['This field is not allowed.'],
        },
        { name: ['This field is required.'] },
      ]);
      const rules = await sut.call('POST', MODELS, {
        body: [
          { name: 'fine', is_default: true },
          { name: 'stored-one' },
          { name: 'fine', is_default: true },
          { name: 'bad-config', model_config: { text: 'x'.repeat(20_000) } },
        ],
      });
      expect(rules.status).to.equal(400);
      expect(rules.body).to.deep.equal([
        {},
        { name: ["LLM model with this name already exists: 'stored-one'."] },
        {
          name: ["LLM model with this name comes earlier in the list: 'fine'."],
          is_default: ['Only one LLM model of the list may set is_default.'],
        },
        { model_config: ['Ensure model_config has no more than 16384 characters as JSON.'] },
      ]);
      expect(await snapshot()).to.deep.equal(before);
    });

    it('takes at most MAX_PAGE_SIZE records and at least one, and never an id', async () => {
      const tooMany = Array.from({ length: MAX_PAGE_SIZE + 1 }, (_, i) => ({ name: `many-${i}` }));
      expect(answer(await sut.call('POST', MODELS, { body: tooMany }))).to.deep.equal({
        status: 400,
        body: { non_field_errors: [`A bulk write takes at most ${MAX_PAGE_SIZE} records (MAX_PAGE_SIZE).`] },
      });
      expect(answer(await sut.call('POST', MODELS, { body: [] }))).to.deep.equal({
        status: 400,
        body: { non_field_errors: ['This list may not be empty.'] },
      });
      expect(answer(await sut.call('POST', MODELS, { body: [{ name: 'x' }, { name: 'y', id: randomUUID() }] }))).to.deep.equal({
        status: 400,
        body: [{}, { id: ['This field is not allowed.'] }],
      });
      expect(answer(await sut.call('POST', MODELS, { body: { name: 'y', id: randomUUID() } }))).to.deep.equal({
        status: 400,
        body: { id: ['This field is not allowed.'] },
      });
      expect(await names(MODELS)).to.not.include.members(['many-0', 'x', 'y']);
    });
  });

  describe('update', () => {
    it('patches and replaces every record of a list of {id, ...fields}, names traded between them', async () => {
      const [a, b] = (
        await sut.call('POST', SECRETS, {
          body: [
            { name: 'swap-a', provider: 'environment-variable', parameters: { variable: 'A' } },
            { name: 'swap-b', provider: 'environment-variable', parameters: { variable: 'B' } },
          ],
        })
      ).body as { id: string }[];
      const patched = await sut.call('PATCH', SECRETS, {
        body: [
          { id: a!.id, name: 'swap-b', description: 'was a' },
          { id: b!.id, name: 'swap-a' },
        ],
      });
      expect(patched.status).to.equal(200);
      expect(patched.body.map((secret: { name: string; description: string }) => [secret.name, secret.description])).to.deep.equal([
        ['swap-b', 'was a'],
        ['swap-a', ''],
      ]);
      const replaced = await sut.call('PUT', SECRETS, {
        body: [{ id: a!.id, name: 'swap-b', provider: 'text-file', parameters: { path: '/run/secrets/a' } }],
      });
      expect(replaced.status).to.equal(200);
      expect(replaced.body[0]).to.include({ provider: 'text-file', description: '' });
      // PUT needs what a replacement needs, PATCH an id.
      expect(answer(await sut.call('PUT', SECRETS, { body: [{ id: a!.id, name: 'swap-b' }] }))).to.deep.equal({
        status: 400,
        body: [{ provider: ['This field is required.'], parameters: ['This field is required.'] }],
      });
      expect(answer(await sut.call('PATCH', SECRETS, { body: [{ description: 'whose?' }] }))).to.deep.equal({
        status: 400,
        body: [{ id: ['This field is required.'] }],
      });
    });

    it('changes nothing when one id is unknown, named twice, or one item breaks a rule', async () => {
      const [a, b] = (await sut.call('POST', MODELS, { body: [{ name: 'upd-a', is_default: true }, { name: 'upd-b' }] })).body as {
        id: string;
      }[];
      const before = await snapshot();
      expect(
        answer(
          await sut.call('PATCH', MODELS, {
            body: [
              { id: a!.id, description: 'changed' },
              { id: randomUUID(), description: 'nobody' },
            ],
          }),
        ),
      ).to.deep.equal({ status: 404, body: { detail: 'No LLM model matches the given query.' } });
      expect(
        answer(
          await sut.call('PATCH', MODELS, {
            body: [
              { id: a!.id, description: 'changed' },
              { id: a!.id, description: 'twice' },
            ],
          }),
        ),
      ).to.deep.equal({ status: 400, body: [{}, { id: ['This record is already named earlier in the list.'] }] });
      expect(
        answer(
          await sut.call('PATCH', MODELS, {
            body: [
              { id: a!.id, name: 'upd-b' },
              { id: b!.id, temperature: 3 },
            ],
          }),
        ),
      ).to.deep.equal({ status: 400, body: [{}, { temperature: ['Ensure this value is less than or equal to 2.'] }] });
      expect(
        answer(
          await sut.call('PATCH', MODELS, {
            body: [
              { id: a!.id, description: 'changed' },
              { id: b!.id, name: 'stored-one' },
            ],
          }),
        ),
      ).to.deep.equal({ status: 400, body: [{}, { name: ["LLM model with this name already exists: 'stored-one'."] }] });
      expect(await snapshot()).to.deep.equal(before);
      // The default moves within one list as it does one write at a time.
      await sut.call('PATCH', MODELS, {
        body: [
          { id: a!.id, is_default: false },
          { id: b!.id, is_default: true },
        ],
      });
      expect((await sut.call('GET', `${MODELS}?is_default=true`)).body.results.map((m: { name: string }) => m.name)).to.deep.equal([
        'upd-b',
      ]);
    });
  });

  describe('delete', () => {
    it('deletes every record of a list of {id}, or none of them', async () => {
      const servers = (
        await sut.call('POST', SERVERS, {
          body: [
            { name: 'gone-1', url: ALLOWED_URL },
            { name: 'gone-2', url: ALLOWED_URL },
          ],
        })
      ).body as { id: string }[];
      const before = await snapshot();
      expect(answer(await sut.call('DELETE', SERVERS, { body: [{ id: servers[0]!.id }, { id: randomUUID() }] }))).to.deep.equal({
        status: 404,
        body: { detail: 'No MCP server matches the given query.' },
      });
      expect(answer(await sut.call('DELETE', SERVERS, { body: [{ id: servers[0]!.id }, { id: 'not-a-uuid' }] }))).to.deep.equal({
        status: 400,
        body: [{}, { id: ['Must be a valid UUID.'] }],
      });
      expect(await snapshot()).to.deep.equal(before);
      const deleted = await sut.call('DELETE', SERVERS, { body: servers.map(({ id }) => ({ id })) });
      expect(deleted.status).to.equal(204);
      expect(await names(SERVERS)).to.not.include.members(['gone-1', 'gone-2']);
    });
  });

  describe('permissions', () => {
    it('needs the permission of each write, as one record at a time does, and a token that may write', async () => {
      const adder = await sut.token({ permissions: ['ai_ops.add_llmmodel', 'ai_ops.view_llmmodel'] });
      const [model] = (await sut.call('POST', MODELS, { key: adder, body: [{ name: 'perm-a' }] })).body as { id: string }[];
      expect(answer(await sut.call('PATCH', MODELS, { key: adder, body: [{ id: model!.id, description: 'x' }] }))).to.deep.equal({
        status: 403,
        body: { detail: 'You do not have permission to perform this action (needs ai_ops.change_llmmodel).' },
      });
      expect((await sut.call('DELETE', MODELS, { key: adder, body: [{ id: model!.id }] })).status).to.equal(403);
      const readOnly = await sut.token({ permissions: ['ai_ops.add_llmmodel'], writeEnabled: false });
      expect((await sut.call('POST', MODELS, { key: readOnly, body: [{ name: 'perm-b' }] })).status).to.equal(403);
      expect(await names(MODELS)).to.not.include('perm-b');
    });
  });

  /**
   * What only a superuser may do stays so in a list: a list whose one item a writer short of
   * superuser may not write is refused whole, with the answer that item alone gets, and changes
   * nothing. The same list from a superuser is written.
   */
  describe('superuser rules', () => {
    const WRITER: Permission[] = [
      'ai_ops.view_llmmodel',
      'ai_ops.add_llmmodel',
      'ai_ops.change_llmmodel',
      'ai_ops.delete_llmmodel',
      'ai_ops.view_mcpserver',
      'ai_ops.add_mcpserver',
      'ai_ops.change_mcpserver',
      'ai_ops.delete_mcpserver',
      'extras.view_secret',
      'extras.add_secret',
      'extras.change_secret',
      'extras.delete_secret',
    ];
    let writer: string;
    let run = 0;

    before(async () => {
      writer = await sut.token({ permissions: WRITER, username: 'writer' });
    });

    /**
     * `single` (the forbidden item's own one-record write) from the writer, then `list` (the same
     * write beside allowed ones) on the list's path: the same refusal, and nothing changed.
     */
    async function refusedLikeOneWrite(
      method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
      path: string,
      list: unknown[],
      single: { method: string; path: string; body?: unknown },
    ): Promise<void> {
      const before = await snapshot();
      const alone = await sut.call(single.method, single.path, {
        key: writer,
        ...(single.body === undefined ? {} : { body: single.body }),
      });
      expect(alone.status, JSON.stringify(alone.body)).to.equal(403);
      const bulk = await sut.call(method, path, { key: writer, body: list });
      expect(answer(bulk)).to.deep.equal(answer(alone));
      expect(await snapshot()).to.deep.equal(before);
    }

    const unique = (name: string) => `${name}-${run++}`;

    it('LLM models: a secret reference, the default, an internal destination', async () => {
      for (const forbidden of [
        { name: unique('keyed'), model_secret_key: 'openai-key' },
        { name: unique('default'), is_default: true },
        { name: unique('internal'), provider: 'openai', hosted_endpoint: 'http://10.0.0.7:6379' },
      ]) {
        await refusedLikeOneWrite('POST', MODELS, [{ name: unique('allowed') }, forbidden], {
          method: 'POST',
          path: MODELS,
          body: forbidden,
        });
      }
      const allowed = [{ name: unique('allowed') }, { name: unique('keyed'), model_secret_key: 'openai-key', is_default: true }];
      expect((await sut.call('POST', MODELS, { body: allowed })).status).to.equal(201);
    });

    it('LLM models: changing or deleting a model whose destination a superuser set', async () => {
      const trusted = (
        await sut.call('POST', MODELS, { body: { name: unique('trusted'), provider: 'openai', hosted_endpoint: ALLOWED_URL } })
      ).body;
      const own = (await sut.call('POST', MODELS, { key: writer, body: { name: unique('own') } })).body;
      const move = { hosted_endpoint: 'http://127.0.0.2:9/v1' };
      await refusedLikeOneWrite(
        'PATCH',
        MODELS,
        [
          { id: own.id, description: 'fine' },
          { id: trusted.id, ...move },
        ],
        {
          method: 'PATCH',
          path: `${MODELS}${trusted.id}/`,
          body: move,
        },
      );
      const rename = { name: unique('renamed') };
      await refusedLikeOneWrite(
        'PUT',
        MODELS,
        [
          { id: own.id, name: own.name },
          { id: trusted.id, ...rename },
        ],
        {
          method: 'PUT',
          path: `${MODELS}${trusted.id}/`,
          body: rename,
        },
      );
      await refusedLikeOneWrite('DELETE', MODELS, [{ id: own.id }, { id: trusted.id }], {
        method: 'DELETE',
        path: `${MODELS}${trusted.id}/`,
      });
      expect((await sut.call('DELETE', MODELS, { body: [{ id: own.id }, { id: trusted.id }] })).status).to.equal(204);
    });

    it('LLM models: moving a model elsewhere clears its secret in a list as it does alone', async () => {
      const keyed = (await sut.call('POST', MODELS, { key: writer, body: { name: unique('moved') } })).body;
      await sut.call('PATCH', `${MODELS}${keyed.id}/`, { body: { model_secret_key: 'openai-key' } });
      const [moved] = (await sut.call('PATCH', MODELS, { key: writer, body: [{ id: keyed.id, hosted_endpoint: ALLOWED_URL }] })).body;
      expect(moved).to.include({ hosted_endpoint: ALLOWED_URL, model_secret_key: '' });
    });

    it('MCP servers: a stdio command, no approval, an internal address, a checked status', async () => {
      for (const forbidden of [
        { name: unique('stdio'), protocol: 'stdio', command: 'sh', args: ['-c', 'id'] },
        { name: unique('unapproved'), url: ALLOWED_URL, approval: 'never' },
        { name: unique('internal'), url: 'http://169.254.169.254/latest/' },
        { name: unique('healthy'), url: ALLOWED_URL, status: 'Healthy' },
        { name: unique('keyed'), url: ALLOWED_URL, auth_secret_key: 'server-token' },
      ]) {
        await refusedLikeOneWrite('POST', SERVERS, [{ name: unique('allowed'), url: ALLOWED_URL }, forbidden], {
          method: 'POST',
          path: SERVERS,
          body: forbidden,
        });
      }
      const stdio = (
        await sut.call('POST', SERVERS, { body: { name: unique('stdio'), protocol: 'stdio', command: 'node', args: ['a.js'] } })
      ).body;
      const own = (await sut.call('POST', SERVERS, { key: writer, body: { name: unique('own'), url: ALLOWED_URL } })).body;
      const change = { args: ['b.js'] };
      await refusedLikeOneWrite(
        'PATCH',
        SERVERS,
        [
          { id: own.id, description: 'fine' },
          { id: stdio.id, ...change },
        ],
        {
          method: 'PATCH',
          path: `${SERVERS}${stdio.id}/`,
          body: change,
        },
      );
    });

    it('secrets: what a secret reads, and a name an LLM model or MCP server sends', async () => {
      await sut.call('POST', MODELS, { body: { name: unique('keyed'), model_secret_key: 'used-by-a-model' } });
      for (const forbidden of [
        { name: unique('env'), provider: 'environment-variable', parameters: { variable: 'REDIS_URL' } },
        { name: unique('file'), provider: 'text-file', parameters: { path: '/etc/hostname' } },
        { name: 'used-by-a-model', provider: 'environment-variable', parameters: { variable: 'ALLOWED_VAR' } },
      ]) {
        const allowed = { name: unique('allowed'), provider: 'environment-variable', parameters: { variable: 'ALLOWED_VAR' } };
        await refusedLikeOneWrite('POST', SECRETS, [allowed, forbidden], { method: 'POST', path: SECRETS, body: forbidden });
      }
      const [own, other] = (
        await sut.call('POST', SECRETS, {
          key: writer,
          body: [unique('own'), unique('other')].map((name) => ({
            name,
            provider: 'environment-variable',
            parameters: { variable: 'ALLOWED_VAR' },
          })),
        })
      ).body as { id: string }[];
      const rename = { name: 'used-by-a-model' };
      await refusedLikeOneWrite(
        'PATCH',
        SECRETS,
        [
          { id: other!.id, description: 'fine' },
          { id: own!.id, ...rename },
        ],
        {
          method: 'PATCH',
          path: `${SECRETS}${own!.id}/`,
          body: rename,
        },
      );
    });
  });
});
