import { expect } from 'chai';
import fc from 'fast-check';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { readsAs } from '../../src/records/record-name.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { startTracing, type Tracing } from '../../src/kernel/tracing/otel-sdk.adapter.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { sendRaw } from '../support/http.js';
import { startTestApi, type TestApi } from '../support/api.js';
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

/**
 * Issue 39's repository URLs as a class: every way git reads a URL (`<transport>::<address>`,
 * `scheme://`, scp-like `[user@]host:path`) around every spelling of an internal address, added
 * by a holder of ai_ops.change_kb. None is listed: git would reach the address inside.
 */
describe('security: a repository URL reaching an internal address in any form git reads is never listed', function () {
  this.timeout(120_000);
  let api: TestApi;
  let key: string;
  /** git's remote-helper prefixes, none among them (a plain URL). */
  const HELPERS = ['', 'https::', 'http::', 'HTTPS::', 'ssh::', 'file::', 'ext::', 'fd::', 'git-remote-x::'];
  /** Loopback, metadata, private and mapped addresses in the spellings resolvers and URL parsers take. */
  const INTERNAL = [
    '127.0.0.1',
    '127.0.0.1:18201',
    '127.1',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    'localhost',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '169.254.169.254',
    '10.0.0.5',
    '192.168.1.1',
    '0.0.0.0',
  ];
  /** How each form of URL names a host. */
  const FORMS: Array<(host: string) => string> = [
    (host) => `http://${host}/net/docs.git`,
    (host) => `https://${host}/net/docs.git`,
    (host) => `ssh://git@${host}/net/docs.git`,
    (host) => `git+ssh://${host}/net/docs.git`,
    (host) => `git://${host}/net/docs.git`,
    (host) => `git@${host.replace(/:\d+$/, '')}:net/docs.git`,
    (host) => `${host.replace(/:\d+$/, '')}:net/docs.git`,
    (host) => `http://${host}\\@git.example.com/net/docs.git`,
  ];

  before(async () => {
    api = await startTestApi(undefined, { OUTBOUND_ALLOW: '', EMBEDDING_MODEL: 'none', KB_OFFICIAL_REPOS: 'false' });
    key = await api.token({ permissions: ['ai_ops.view_kb', 'ai_ops.change_kb'] });
  });
  after(async () => {
    await api?.close();
  });

  it('answers 400 or 403 to each, and the list stays empty', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...HELPERS), fc.constantFrom(...FORMS), fc.constantFrom(...INTERNAL), async (helper, form, host) => {
        const url = `${helper}${form(host)}`;
        const reply = await api.call('POST', '/api/plugins/ai-ops/kb/repos/', { key, body: { url, name: 'net/reached' } });
        expect([400, 403], `${url}: ${reply.status} ${JSON.stringify(reply.body)}`).to.include(reply.status);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300), seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100_000), endOnFailure: true },
    );
    expect((await api.call('GET', '/api/plugins/ai-ops/kb/repos/', { key })).body.results).to.deep.equal([]);
  });
});

/**
 * The input shapes of the model and tracing findings, each as a class: a key that steers a model
 * (named by a provider, or unknown, at the top of `model_config` or nested under a generation
 * option) on a superuser's model, a budget above a superuser's, and a caller's `traceparent` of any
 * trace id and flags.
 */
describe("security: steering keys, raised budgets and callers' trace contexts never get through", function () {
  this.timeout(120_000);
  const MODELS = '/api/plugins/ai-ops/llm-models/';
  /** Keys the providers read as a system prompt, a destination, headers or tools. */
  const STEERING = [
    'system',
    'messages',
    'instructions',
    'template',
    'prompt',
    'headers',
    'default_headers',
    'extra_headers',
    'extra_body',
    'base_url',
    'baseURL',
    'endpoint',
    'endpointUrl',
    'mcp_servers',
    'tools',
    'tool_choice',
    'functions',
    'function_call',
    'response_format',
    'format',
  ];
  /** Every provider's generation options, as the README lists them: an unknown key is none of these. */
  const GENERATION_OPTIONS = new Set(
    (
      'max_tokens max_completion_tokens num_predict num_ctx top_p top_k min_p typical_p stop stop_sequences seed frequency_penalty ' +
      'presence_penalty repeat_penalty repeat_last_n reasoning_effort mirostat mirostat_eta mirostat_tau keep_alive think'
    ).split(' '),
  );
  const PROVIDERS = ['anthropic', 'openai', 'azure_ai', 'ollama', 'huggingface', 'custom'] as const;
  let redis: TestRedis;
  let receiver: OtlpReceiver;
  let tracing: Tracing | undefined;
  let sut: ChatHarness;
  let admin: string;
  let editor: string;

  before(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    tracing = await startTracing('aiops-test');
    sut = await startChatHarness(redis);
    admin = (await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null }))
      .key;
    editor = await sut.token('editor', ['ai_ops.view_llmmodel', 'ai_ops.change_llmmodel']);
  });
  after(async () => {
    await sut.close();
    await tracing?.shutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await receiver.close();
    await redis.destroy();
  });

  const runs = (count: number) => ({
    numRuns: Number(process.env.FUZZ_RUNS ?? count),
    seed: Number(process.env.FUZZ_SEED ?? Date.now() % 100_000),
    endOnFailure: true,
  });

  it("refuses every steering key, unknown or nested, on each provider's superuser model, and leaves the model as it was", async () => {
    const models = new Map<string, { id: string; body: unknown }>();
    for (const provider of PROVIDERS) {
      const created = await sut.call('POST', MODELS, {
        key: admin,
        body: { name: `steered-${provider}`, provider, hosted_endpoint: 'https://models.example.test/', model_config: { max_tokens: 64 } },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      models.set(provider, { id: created.body.id as string, body: created.body });
    }
    const key = fc.oneof(
      fc.constantFrom(...STEERING),
      fc.stringMatching(/^[a-z][a-z_]{0,20}$/).filter((name) => !GENERATION_OPTIONS.has(name)),
    );
    const value = fc.oneof(fc.string(), fc.constant({ url: 'https://evil.example/' }), fc.constant([{ name: 'exfiltrate' }]));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PROVIDERS), key, value, fc.boolean(), async (provider, name, steer, nested) => {
        const model_config = nested ? { max_tokens: 64, top_p: { [name]: steer } } : { max_tokens: 64, [name]: steer };
        const { id, body } = models.get(provider)!;
        const reply = await sut.call('PATCH', `${MODELS}${id}/`, { key: editor, body: { model_config } });
        expect(reply.status, `${provider} ${JSON.stringify(model_config)}: ${JSON.stringify(reply.body)}`).to.equal(403);
        expect((await sut.call('GET', `${MODELS}${id}/`, { key: admin })).body).to.deep.equal(body);
      }),
      runs(200),
    );
  });

  it("refuses every raise or removal of a superuser model's budget", async () => {
    const created = await sut.call('POST', MODELS, {
      key: admin,
      body: { name: 'budgeted', provider: 'openai', daily_token_budget: 1_000 },
    });
    const raise = fc.oneof(fc.constant(null), fc.integer({ min: 1_001, max: Number.MAX_SAFE_INTEGER }));
    await fc.assert(
      fc.asyncProperty(raise, async (daily_token_budget) => {
        const reply = await sut.call('PATCH', `${MODELS}${created.body.id}/`, { key: editor, body: { daily_token_budget } });
        expect(reply.status, String(daily_token_budget)).to.equal(403);
      }),
      runs(100),
    );
    expect((await sut.call('GET', `${MODELS}${created.body.id}/`, { key: admin })).body.daily_token_budget).to.equal(1_000);
  });

  it("answers a turn in a trace of the service's own whatever trace id and flags a caller's traceparent names", async () => {
    await sut.model({ name: 'traced-turns' });
    const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
    await fc.assert(
      fc.asyncProperty(hex(32), hex(16), fc.constantFrom('00', '01', 'ff'), async (traceId, spanId, flags) => {
        const traceparent = `00-${traceId}-${spanId}-${flags}`;
        const reply = await sut.call('POST', '/plugins/ai-ops/api/chat/', {
          key: admin,
          body: { message: 'hello' },
          headers: { traceparent },
        });
        expect(reply.status, traceparent).to.equal(200);
        expect(reply.body.trace_id, traceparent)
          .to.match(/^[0-9a-f]{32}$/)
          .and.not.equal(traceId);
      }),
      runs(10),
    );
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
