import { expect } from 'chai';
import fc from 'fast-check';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { readsAs } from '../../src/records/record-name.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { sendRaw } from '../support/http.js';
import { controlPlaneRefusal } from '../../src/api/control-plane.js';
import { isCredentialField } from '../../src/kernel/security/redact-secrets.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
/** Numbers past every integer type, past a double, and not numbers at all. */
const HUGE = ['1e19', '1e400', '9223372036854775807', '-1', 'NaN'];
const EVIL_HOST = 'evil.example';

interface Parameter {
  name: string;
  in: string;
  schema?: { type?: string };
}

/** The documented GET operations, with their numeric query parameters and whether they answer a page. */
function getOperations(): Array<{ path: string; numeric: string[]; paged: boolean }> {
  const document = loadOpenApiDocument();
  const shared = (document.components?.parameters ?? {}) as Record<string, Parameter>;
  return Object.entries(document.paths).flatMap(([path, item]) => {
    const operation = (item as { get?: { parameters?: Array<Parameter | { $ref: string }> } } | undefined)?.get;
    if (!operation) return [];
    const parameters = (operation.parameters ?? []).map((parameter) =>
      '$ref' in parameter ? shared[parameter.$ref.split('/').pop()!]! : parameter,
    );
    const query = parameters.filter((parameter) => parameter.in === 'query');
    return [
      {
        path,
        numeric: query.filter((parameter) => ['integer', 'number'].includes(parameter.schema?.type ?? '')).map(({ name }) => name),
        paged: query.some((parameter) => parameter.name === 'limit'),
      },
    ];
  });
}

/**
 * The input shapes of the adversarial audit's findings, each as a class: huge numbers in every
 * numeric query parameter, a foreign Host header on every list, look-alikes of `built-in` in every
 * name an MCP server write takes.
 */
describe('security: huge numbers, foreign hosts and look-alike names never get through', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let admin: string;
  const operations = getOperations();

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis);
    admin = (await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null }))
      .key;
    // Two of everything a list shows, so that a page of one has a next link.
    await sut.model({ name: 'first-model' });
    await sut.model({ name: 'second-model', is_default: false });
    for (const name of ['first-server', 'second-server']) {
      expect((await sut.call('POST', SERVERS, { key: admin, body: { name, url: 'https://tools.example.test/' } })).status).to.equal(201);
    }
    await sut.records.secrets.create(
      { name: 'second-secret', description: '', provider: 'environment-variable', parameters: { variable: 'UNSET' } },
      OPERATOR,
    );
    await sut.token('second-token');
    for (const message of ['one', 'two']) expect((await sut.call('POST', CHAT, { key: admin, body: { message } })).status).to.equal(200);
    const audit = new RedisAuditLog(redis.client, { prefix: sut.prefix, retentionMs: 86_400_000 });
    for (const tool of ['first_tool', 'second_tool']) {
      await audit.append({
        time: new Date().toISOString(),
        user: 'admin',
        user_id: 'admin',
        session_id: 's1',
        job_id: 'chat-1',
        server: 'built-in',
        tool,
        arguments: {},
        outcome: 'ok',
        http_status: null,
        approval: null,
        duration_ms: 1,
      });
    }
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    sendRaw(`${sut.baseUrl}${path}`, 'GET', { headers: { authorization: `Token ${admin}`, ...headers } });

  describe('huge numbers in every numeric query parameter of a documented GET', () => {
    it('finds the parameters in the document', () => {
      expect(operations.flatMap(({ numeric }) => numeric).length).to.be.greaterThan(10);
    });
    for (const { path, numeric } of operations) {
      for (const parameter of numeric) {
        for (const value of HUGE) {
          it(`GET ${path}?${parameter}=${value} answers no 5xx and no link past a number`, async () => {
            const reply = await get(`${path}?${parameter}=${encodeURIComponent(value)}`);
            expect(reply.status, reply.text.slice(0, 300)).to.be.below(500);
            expect(reply.text).to.not.match(/offset=(Infinity|NaN|-)|limit=(Infinity|NaN|-)/);
          });
        }
      }
    }
  });

  describe('a foreign Host header on every list', () => {
    const lists = () => operations.filter(({ paged }) => paged).map(({ path }) => path);
    it('finds the lists in the document', () => {
      expect(lists().length).to.be.greaterThan(5);
    });
    for (const { path } of getOperations().filter(({ paged }) => paged)) {
      it(`GET ${path}?limit=1 never names the Host or X-Forwarded-Host it was sent`, async () => {
        const reply = await get(`${path}?limit=1`, { host: EVIL_HOST, 'x-forwarded-host': EVIL_HOST });
        expect(reply.status, reply.text.slice(0, 300)).to.equal(200);
        expect(JSON.parse(reply.text).count, 'a list of two or more').to.be.greaterThan(1);
        expect(reply.text).to.not.include(EVIL_HOST);
      });
    }
    it(`GET ${CHAT}jobs/ never names the Host it was sent`, async () => {
      const reply = await get(`${CHAT}jobs/`, { host: EVIL_HOST, 'x-forwarded-host': EVIL_HOST });
      expect(reply.status).to.equal(200);
      expect(reply.text).to.not.include(EVIL_HOST);
    });
  });

  describe('look-alikes of built-in in every name an MCP server write takes', () => {
    /** Each letter of `built-in` or one that reads as it: case, full width, other scripts, every dash. */
    const LOOKS = {
      b: ['b', 'B', 'ｂ', 'Ь', 'ᖯ', '𝐛', 'Ƅ'],
      u: ['u', 'U', 'ｕ', 'υ', 'ս', 'ᴜ', '𝐮', 'ʋ'],
      i: ['i', 'I', 'ｉ', 'і', 'ı', 'ɩ', 'ι', 'Ꭵ', '𝐢', 'ⅰ', 'ӏ', '1', 'l'],
      l: ['l', 'L', 'ｌ', 'ӏ', 'Ɩ', '1', 'I', '|', 'ℓ', 'ⅼ', '𝐥', 'ǀ'],
      t: ['t', 'T', 'ｔ', '𝐭'],
      n: ['n', 'N', 'ｎ', 'ո', '𝐧'],
      '-': [
        '-',
        '\u2010',
        '\u2011',
        '\u2012',
        '\u2013',
        '\u2014',
        '\u2015',
        '\u2212',
        '\ufe63',
        '\uff0d',
        '\u02d7',
        '\u2043',
        '\u30fc',
        ' ',
        '_',
        '.',
        '',
      ],
    } as const;
    /** Characters that show nothing, and spaces. */
    const UNSEEN = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', ' ', '\u00a0', '\u3000'];
    const lookAlike = fc
      .tuple(
        ...[...'built-in'].map((letter) => fc.constantFrom(...LOOKS[letter as keyof typeof LOOKS])),
        fc.array(fc.tuple(fc.nat(8), fc.constantFrom(...UNSEEN)), { maxLength: 2 }),
      )
      .map((parts) => {
        const inserts = parts.pop() as Array<[number, string]>;
        const letters = parts as string[];
        for (const [at, unseen] of inserts) letters.splice(at, 0, unseen);
        return letters.join('');
      });

    it('are refused with a 400 on the name in POST, PUT and PATCH, and no server ever reads as built-in', async () => {
      const existing = await sut.call('POST', SERVERS, { key: admin, body: { name: 'plain-server', url: 'https://tools.example.test/' } });
      const id = String(existing.body.id);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('POST', 'PUT', 'PATCH'), lookAlike, async (method, name) => {
          const body = method === 'PATCH' ? { name } : { name, url: 'https://tools.example.test/' };
          const reply = await sut.call(method, method === 'POST' ? SERVERS : `${SERVERS}${id}/`, { key: admin, body });
          expect(reply.status, `${method} ${JSON.stringify(name)}: ${JSON.stringify(reply.body)}`).to.equal(400);
          expect(reply.body).to.have.property('name');
        }),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 300), seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100_000), endOnFailure: true },
      );
      const names = (await sut.call('GET', `${SERVERS}?limit=1000`, { key: admin })).body.results.map(
        (server: { name: string }) => server.name,
      );
      expect(names.filter((name: string) => readsAs(name, 'built-in'))).to.deep.equal([]);
    });
  });

  describe("the control plane with a chat turn's delegated key, its paths spelt every way; credentials named in every style", () => {
    const CONTROL_PLANE = [
      '/api/users/tokens/',
      '/api/users/tokens/me/',
      '/plugins/ai-ops/api/chat/sessions/',
      '/plugins/ai-ops/api/chat/jobs/',
      '/api/plugins/ai-ops/platform-token/',
    ];
    /** Each letter in either case, some percent-encoded once or twice, some slashes doubled: what a router or a proxy may read as the path. */
    const spelt = fc.constantFrom(...CONTROL_PLANE).chain((path) =>
      fc
        .array(fc.tuple(fc.boolean(), fc.constantFrom(0, 0, 1, 2), fc.boolean()), { minLength: path.length, maxLength: path.length })
        .map((choices) =>
          [...path]
            .map((char, at) => {
              const [upper, encodings, doubled] = choices[at]!;
              if (char === '/') return doubled && at > 0 ? '//' : '/';
              const letter = upper ? char.toUpperCase() : char;
              if (encodings === 0) return letter;
              const encoded = `%${letter.charCodeAt(0).toString(16)}`;
              return encodings === 2 ? encoded.replace('%', '%25') : encoded;
            })
            .join(''),
        ),
    );

    it('reaches no handler: 403 naming the control plane, or 404; nothing is minted; the request tool refuses each spelling', async () => {
      const parent = await sut.records.tokens.create({
        username: 'fuzz-parent',
        superuser: true,
        permissions: [],
        writeEnabled: true,
        expires: null,
      });
      const delegated = await sut.records.tokens.delegate(parent.token.id, {
        ttlMs: 600_000,
        description: 'fuzz (delegated)',
        workId: 'fuzz-cp',
      });
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('GET', 'POST'), spelt, async (method, path) => {
          expect(controlPlaneRefusal(path), path).to.be.a('string');
          const reply = await sut.call(method, path, {
            key: delegated.key,
            ...(method === 'POST' ? { body: { user: 'minted-by-fuzz' } } : {}),
          });
          expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).to.be.oneOf([403, 404]);
          if (reply.status === 403) expect(reply.body.detail).to.contain('control plane');
        }),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 200), seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100_000), endOnFailure: true },
      );
      expect((await sut.records.tokens.list()).filter((token) => token.username === 'minted-by-fuzz')).to.deep.equal([]);
      await delegated.revoke();
    });

    /** A name's words written as camelCase, PascalCase, snake_case, SCREAMING_SNAKE, kebab-case, Train-Case or dotted. */
    const styled = (words: readonly string[]) =>
      fc.constantFrom(
        words.map((word, at) => (at === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join(''),
        words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(''),
        words.join('_'),
        words.join('_').toUpperCase(),
        words.join('-'),
        words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('-'),
        words.join('.'),
      );
    const CREDENTIALS = [
      ['access', 'token'],
      ['client', 'secret'],
      ['secret', 'key'],
      ['aws', 'secret', 'access', 'key'],
      ['ssh', 'key'],
      ['set', 'cookie'],
      ['api', 'key'],
      ['db', 'password'],
      ['refresh', 'token'],
      ['proxy', 'authorization'],
      ['private', 'key'],
      ['session', 'id'],
      ['service', 'account', 'credentials'],
    ];
    const HARMLESS = [
      ['input', 'tokens'],
      ['max', 'tokens'],
      ['token', 'count'],
      ['primary', 'key'],
      ['public', 'key'],
      ['next', 'page', 'token'],
      ['key', 'hint'],
      ['auth', 'secret', 'key'],
      ['model', 'secret', 'key'],
    ];

    it('blanks a credential and keeps a count or a record key whatever the style of its name', () => {
      fc.assert(fc.property(fc.constantFrom(...CREDENTIALS).chain(styled), (name) => isCredentialField(name)));
      fc.assert(fc.property(fc.constantFrom(...HARMLESS).chain(styled), (name) => !isCredentialField(name)));
    });
  });
});
