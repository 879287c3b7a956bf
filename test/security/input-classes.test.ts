import { expect } from 'chai';
import fc from 'fast-check';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { readsAs } from '../../src/records/record-name.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { sendRaw } from '../support/http.js';
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
});

/**
 * The usage audit's input classes: dates the calendar does not have and date ranges far past what
 * is kept, in every date query parameter (a range of millennia once took the process down).
 * (Turns asked at once against a budget: `test/chat/token-usage.test.ts`; every parameter's
 * extremes: `extreme-parameters.test.ts`.)
 */
describe('security: impossible dates and ranges past the retention never get through', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let sut: ChatHarness;
  let chatter: string;
  let admin: string;
  const USAGE = '/api/plugins/ai-ops/usage/';
  /** Days past the end of their month, months outside the year, in any year. */
  const impossibleDay = fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 39 }))
    .map(([year, month, day]) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`)
    .filter((text) => Number.isNaN(Date.parse(`${text}T00:00:00Z`)) || new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text);
  const anyDay = fc
    .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
    .map((at) => at.toISOString().slice(0, 10));

  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, { workers: false });
    chatter = await sut.token('chatter');
    admin = (await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null }))
      .key;
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
  });

  it('refuses a day the calendar lacks with a 400 in since and until of the usage report and the audit log', async () => {
    await fc.assert(
      fc.asyncProperty(
        impossibleDay,
        fc.constantFrom(`${USAGE}?since=`, `${USAGE}?until=`, '/api/plugins/ai-ops/audit-log/?since='),
        async (day, path) => {
          const value = path.includes('audit-log') ? `${day}T00:00:00Z` : day;
          // The audit log is read with its permission; the usage report with only ai_ops.chat, as in the audit.
          const reply = await sut.call('GET', `${path}${value}`, { key: path.includes('audit-log') ? admin : chatter });
          expect(reply.status, `${path}${value}`).to.equal(400);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 100), seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100_000), endOnFailure: true },
    );
  });

  it('answers any range of real days with a report or a 400 naming USAGE_RETENTION_DAYS, never more days than are kept', async () => {
    await fc.assert(
      fc.asyncProperty(anyDay, anyDay, async (first, second) => {
        const [since, until] = first <= second ? [first, second] : [second, first];
        const reply = await sut.call('GET', `${USAGE}?since=${since}&until=${until}`, { key: chatter });
        const span = (Date.parse(until) - Date.parse(since)) / 86_400_000;
        if (span > 90) expect(reply.body.since?.[0], `${since}..${until}`).to.include('USAGE_RETENTION_DAYS (90)');
        else expect(reply.status, `${since}..${until}`).to.equal(200);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 100), seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100_000), endOnFailure: true },
    );
    expect((await sut.call('GET', USAGE, { key: chatter })).status, 'the API still answers').to.equal(200);
  });
});
