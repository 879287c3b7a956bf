import { expect } from 'chai';
import { isNode, loadOpenApiDocument, resolved, type DocumentNode } from '../../src/api/openapi.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

/** A request that takes longer than this is a failure (a report that expands without bound took 100 s, then the heap). */
const REQUEST_TIMEOUT_MS = 10_000;

/** Days and instants the calendar does not have: always a 400, never read as the next valid one. */
const IMPOSSIBLE = new Set(['2026-02-30', '2026-13-01', '2026-02-30T00:00:00Z', '2026-01-01T25:00:00Z']);

/** Values at and past the ends of what a query parameter of this schema could mean. */
function extremes(schema: DocumentNode): string[] {
  if (schema.type === 'integer' || schema.type === 'number')
    return ['1e400', '-1e400', '99999999999999999999', '2147483648', '-1', '-2147483649', '0.5', 'NaN'];
  if (schema.format === 'date') return ['0001-01-01', '9999-12-31', '2026-02-30', '2026-13-01', '99999-01-01'];
  if (schema.format === 'date-time')
    return ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2026-02-30T00:00:00Z', '2026-01-01T25:00:00Z'];
  if (schema.type === 'boolean') return ['x'.repeat(10_000)];
  // Strings (names, filters, searches) and anything else: far longer than any bound the document sets.
  return ['x'.repeat(10_000), '%00'.repeat(2_000)];
}

interface Probe {
  path: string;
  query: string;
}

/** Every GET of the document with query parameters: each parameter at each extreme, and its date parameters at opposite ends together. */
function probes(): Probe[] {
  const document = loadOpenApiDocument();
  const found: Probe[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const operation = resolved(document, resolved(document, item).get);
    const declared = [
      ...((resolved(document, item).parameters as unknown[] | undefined) ?? []),
      ...((operation.parameters as unknown[]) ?? []),
    ];
    const query = declared.map((parameter) => resolved(document, parameter)).filter((parameter) => parameter.in === 'query');
    if (!isNode(operation) || query.length === 0) continue;
    // Path parameters get a plain value: the lists and reports under them are probed as well as those at the top.
    const path = template.replace(/\{[^}]+\}/g, '1');
    for (const parameter of query)
      for (const value of extremes(resolved(document, parameter.schema)))
        found.push({ path, query: `${encodeURIComponent(String(parameter.name))}=${value}` });
    const dates = query.filter((parameter) => resolved(document, parameter.schema).format === 'date');
    if (dates.length === 2) found.push({ path, query: `${String(dates[0]!.name)}=0001-01-01&${String(dates[1]!.name)}=9999-12-31` });
  }
  return found;
}

describe('security: every list and report parameter that sizes work is bounded', () => {
  let redis: TestRedis;
  let sut: ChatHarness;
  let admin: string;
  before(async () => {
    redis = await startTestRedis();
    sut = await startChatHarness(redis, { workers: false });
    admin = (await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null }))
      .key;
    await sut.model();
  });
  after(async () => {
    await sut.close();
    await redis.destroy();
  });

  const ask = async (path: string, key: string): Promise<{ status: number; body: string }> => {
    const response = await fetch(sut.baseUrl + path, {
      headers: { authorization: `Token ${key}` },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: response.status, body: await response.text() };
  };

  it('answers each GET with query parameters its extreme values with a 400 or a bounded answer, and stays up', async function () {
    this.timeout(600_000);
    const sent = probes();
    expect(sent.length, 'the document has lists and reports to probe').to.be.greaterThan(20);
    const failures: string[] = [];
    for (const { path, query } of sent) {
      const { status, body } = await ask(`${path}?${query}`, admin);
      const impossible = IMPOSSIBLE.has(query.slice(query.indexOf('=') + 1));
      if (status >= 500 || (impossible && status !== 400)) failures.push(`${status} ${path}?${query.slice(0, 80)}: ${body.slice(0, 200)}`);
    }
    expect(failures).to.deep.equal([]);
    expect((await ask('/api/status/', admin)).status, 'the API still answers').to.equal(200);
  });

  it('refuses a usage report over more days than are kept, and an impossible date, with a 400 naming the limit', async () => {
    const chatter = await sut.token('carol');
    const millennia = await ask('/api/plugins/ai-ops/usage/?since=0001-01-01&until=9999-12-31', chatter);
    expect(millennia.status).to.equal(400);
    expect(JSON.parse(millennia.body).since[0]).to.include('USAGE_RETENTION_DAYS (90)');
    const impossible = await ask('/api/plugins/ai-ops/usage/?since=2026-02-30', chatter);
    expect(impossible.status).to.equal(400);
    expect(impossible.body).to.include('since');
    const kept = await ask('/api/plugins/ai-ops/usage/?since=2026-01-01&until=2026-03-31', chatter);
    expect(kept.status, 'ninety days back from until is still a report').to.equal(200);
    expect((await ask('/api/plugins/ai-ops/usage/', chatter)).status, 'the API still answers').to.equal(200);
  });
});
