// Endpoint search benchmark: quality (lexical only) on the first development set and on the
// written set over Nautobot 1.3.7 and NetBox 4.2.2, per platform, style and split, with ablations;
// whether write hits carry the right required fields; index build time; search latency through
// MCP stdio; time from a restart to the first answer with an unchanged description.
// Run alone with `npm run build && node --import tsx bench/platform-search.ts`.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseDescription, type ParsedDescription } from '../src/endpoint-search/endpoint-document.js';
import { EndpointSearch, type EndpointSearchOptions } from '../src/endpoint-search/endpoint-search.js';
import { OperationDescriber } from '../src/endpoint-search/operation-schema.js';
import { QueryAnalyser } from '../src/endpoint-search/query-analysis.js';
import { benchFigures, EXACT, higher, informational, lower, type BenchFigures } from './support/figures.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(ROOT, 'test/fixtures/openapi');
const PLATFORMS = { nautobot: 'nautobot-openapi.json', netbox: 'netbox-openapi.json' } as const;
type Platform = keyof typeof PLATFORMS;

interface Query {
  query: string;
  platform: Platform;
  /** engineer: a person's words; agent: the short API-ish words an LLM agent sends; first: the first development set. */
  style: 'engineer' | 'agent' | 'first';
  /** heldout: never looked at while tuning. */
  split: 'dev' | 'heldout';
  expected: Array<{ method: string; path: string }>;
}

export interface Quality {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
}

export interface QualityRow extends Quality {
  set: string;
  platform: Platform | 'both';
  style: string;
  split: string;
  variant: string;
}

export interface PlatformSearchReport {
  quality: QualityRow[];
  /** Write requests whose right operation is in the top 5 with the required fields the schema look-up gives. */
  writesWithRequiredFields: { queries: number; share: number };
  indexBuildMs: Record<Platform, number>;
  stdioSearchMs: Record<Platform, { p50: number; p95: number; samples: number }>;
  /** The search alone, in this process: wall-clock percentiles and the mean CPU time per search (what load on the machine does not inflate). */
  inProcessSearchMs: Record<Platform, { p50: number; p95: number; meanCpu: number }>;
  /** One-minute load average and cores when the latencies were taken: wall-clock figures on a busy machine include waiting for a core. */
  machine: { loadAverage: number; cores: number };
  /** From spawning the compiled process (Node start-up and imports included) to the first search answer. */
  restartToFirstAnswerMs: number;
  /** From the MCP handshake of the restarted process to its first search answer. */
  handshakeToFirstAnswerMs: number;
  mode: 'lexical';
  vectorStore: 'none';
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
const lines = (file: string) => readFileSync(path.join(FIXTURES, file), 'utf8').trim().split('\n');

function loadQueries(): Query[] {
  const first = lines('endpoint-queries.dev.jsonl').map((line) => ({
    ...(JSON.parse(line) as Pick<Query, 'query' | 'expected'>),
    platform: 'nautobot' as const,
    style: 'first' as const,
    split: 'dev' as const,
  }));
  const written = lines('endpoint-queries.written.jsonl').map((line) => JSON.parse(line) as Query);
  return [...first, ...written];
}

const descriptions = Object.fromEntries(
  Object.entries(PLATFORMS).map(([platform, file]) => [
    platform,
    parseDescription(JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8'))),
  ]),
) as Record<Platform, ParsedDescription>;

/** Search variants: the full search and the ablations that show what each part adds. */
const VARIANTS: Record<string, EndpointSearchOptions> = {
  full: {},
  'no hand vocab': { analyser: new QueryAnalyser([]) },
  'no spec vocab': { specVocabulary: false },
  'no vocabulary': { analyser: new QueryAnalyser([]), specVocabulary: false },
  'no intent': { intent: false },
};

async function rankOf(search: EndpointSearch, { query, expected }: Query): Promise<number> {
  const results = await search.search(query, 10);
  return results.findIndex(({ endpoint }) => expected.some((e) => e.method === endpoint.method && e.path === endpoint.specPath));
}

function summarise(ranks: number[]): Quality {
  const n = ranks.length || 1;
  return {
    queries: ranks.length,
    recallAt1: round(ranks.filter((rank) => rank === 0).length / n),
    recallAt5: round(ranks.filter((rank) => rank >= 0 && rank < 5).length / n),
    mrr: round(ranks.reduce((sum, rank) => sum + (rank >= 0 ? 1 / (rank + 1) : 0), 0) / n),
  };
}

async function quality(queries: Query[]): Promise<QualityRow[]> {
  const rows: QualityRow[] = [];
  for (const [variant, options] of Object.entries(VARIANTS)) {
    const searches = Object.fromEntries(
      Object.entries(descriptions).map(([platform, parsed]) => [platform, new EndpointSearch(parsed.endpoints, options)]),
    ) as Record<Platform, EndpointSearch>;
    const ranked = await Promise.all(queries.map(async (query) => ({ query, rank: await rankOf(searches[query.platform], query) })));
    const group = (set: string, platform: QualityRow['platform'], style: string, split: string, keep: (query: Query) => boolean) => {
      const ranks = ranked.filter(({ query }) => keep(query)).map(({ rank }) => rank);
      if (ranks.length) rows.push({ set, platform, style, split, variant, ...summarise(ranks) });
    };
    if (variant === 'full') group('first', 'nautobot', 'engineer', 'dev', (query) => query.style === 'first');
    for (const split of ['dev', 'heldout'] as const) {
      const inSplit = (query: Query) => query.style !== 'first' && query.split === split;
      if (variant === 'full') {
        for (const platform of Object.keys(PLATFORMS) as Platform[]) {
          for (const style of ['engineer', 'agent'] as const)
            group('written', platform, style, split, (query) => inSplit(query) && query.platform === platform && query.style === style);
        }
      }
      for (const style of ['engineer', 'agent'] as const)
        group('written', 'both', style, split, (query) => inSplit(query) && query.style === style);
      group('written', 'both', 'all', split, inSplit);
    }
  }
  return rows;
}

/** Writes whose right operation is in the top 5 and whose hit names the fields the schema look-up requires. */
async function writesWithRequiredFields(queries: Query[]): Promise<PlatformSearchReport['writesWithRequiredFields']> {
  const writes = queries.filter(
    (query) => query.style !== 'first' && query.expected.some(({ method }) => method === 'POST' || method === 'PUT'),
  );
  let covered = 0;
  for (const query of writes) {
    const parsed = descriptions[query.platform];
    const results = await new EndpointSearch(parsed.endpoints).search(query.query, 5);
    const hit = results.find(({ endpoint }) => query.expected.some((e) => e.method === endpoint.method && e.path === endpoint.specPath));
    if (!hit) continue;
    const required = new OperationDescriber(parsed).describe(hit.endpoint.method, hit.endpoint.path).request_body?.required ?? [];
    if (required.every((field) => hit.endpoint.requiredFields.includes(field))) covered += 1;
  }
  return { queries: writes.length, share: round(covered / (writes.length || 1)) };
}

async function inProcessLatency(platform: Platform, queries: string[]): Promise<{ p50: number; p95: number; meanCpu: number }> {
  const search = new EndpointSearch(descriptions[platform].endpoints);
  for (const query of queries) await search.search(query, 5);
  const wall: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let round = 0; round < 3; round++) {
    for (const query of queries) {
      const started = performance.now();
      await search.search(query, 5);
      wall.push(performance.now() - started);
    }
  }
  const cpu = process.cpuUsage(cpuStart);
  wall.sort((a, b) => a - b);
  return {
    p50: round(percentile(wall, 50), 2),
    p95: round(percentile(wall, 95), 2),
    meanCpu: round((cpu.user + cpu.system) / 1000 / wall.length, 2),
  };
}

function buildTime(platform: Platform): number {
  const text = readFileSync(path.join(FIXTURES, PLATFORMS[platform]), 'utf8');
  const started = performance.now();
  new EndpointSearch(parseDescription(JSON.parse(text)).endpoints);
  return round(performance.now() - started, 1);
}

/** A platform serving one description on loopback. */
async function startPlatform(platform: Platform): Promise<{ url: string; close: () => Promise<void> }> {
  const description = readFileSync(path.join(FIXTURES, PLATFORMS[platform]));
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/api/docs/')) res.writeHead(200, { 'content-type': 'application/json' }).end(description);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function startMcp(platformUrl: string, dataDir: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The compiled entry, as `aiops mcp` runs in production (`npm run bench` builds it first).
    args: [path.join(ROOT, 'bin/aiops.js'), 'mcp'],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PLATFORM_URL_LOCAL: platformUrl, EMBEDDING_MODEL: 'none', DATA_DIR: dataDir, LOG_LEVEL: 'error' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return client;
}

async function search(client: Client, query: string): Promise<CallToolResult> {
  const result = (await client.callTool({
    name: 'platform_openapi_api_request_schema',
    arguments: { query, n_results: 5 },
  })) as CallToolResult;
  if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
  return result;
}

/** Search latencies through a spawned `aiops mcp` over stdio, three rounds of the platform's queries. */
async function stdioLatency(
  platform: Platform,
  queries: string[],
  dataDir: string,
): Promise<{ latencies: number[]; restartMs: number; handshakeMs: number }> {
  const served = await startPlatform(platform);
  try {
    const first = await startMcp(served.url, dataDir);
    await search(first, 'warm up');
    const latencies: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const query of queries) {
        const started = performance.now();
        await search(first, query);
        latencies.push(performance.now() - started);
      }
    }
    await first.close();
    const restarted = performance.now();
    const second = await startMcp(served.url, dataDir);
    const connected = performance.now();
    await search(second, queries[0]!);
    const restartMs = performance.now() - restarted;
    const handshakeMs = performance.now() - connected;
    await second.close();
    return { latencies: latencies.sort((a, b) => a - b), restartMs, handshakeMs };
  } finally {
    await served.close();
  }
}

export async function runPlatformSearchBench(): Promise<PlatformSearchReport> {
  const queries = loadQueries();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-bench-'));
  try {
    const nautobot = await stdioLatency(
      'nautobot',
      queries.filter((query) => query.platform === 'nautobot').map(({ query }) => query),
      dataDir,
    );
    const netbox = await stdioLatency(
      'netbox',
      queries.filter((query) => query.platform === 'netbox').map(({ query }) => query),
      dataDir,
    );
    const latency = ({ latencies }: { latencies: number[] }) => ({
      p50: round(percentile(latencies, 50), 2),
      p95: round(percentile(latencies, 95), 2),
      samples: latencies.length,
    });
    return {
      quality: await quality(queries),
      writesWithRequiredFields: await writesWithRequiredFields(queries),
      indexBuildMs: { nautobot: buildTime('nautobot'), netbox: buildTime('netbox') },
      stdioSearchMs: { nautobot: latency(nautobot), netbox: latency(netbox) },
      inProcessSearchMs: {
        nautobot: await inProcessLatency(
          'nautobot',
          queries.filter((query) => query.platform === 'nautobot').map(({ query }) => query),
        ),
        netbox: await inProcessLatency(
          'netbox',
          queries.filter((query) => query.platform === 'netbox').map(({ query }) => query),
        ),
      },
      machine: { loadAverage: round(loadavg()[0]!, 1), cores: availableParallelism() },
      restartToFirstAnswerMs: Math.round(nautobot.restartMs),
      handshakeToFirstAnswerMs: Math.round(nautobot.handshakeMs),
      mode: 'lexical',
      vectorStore: 'none',
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function printQuality(rows: QualityRow[], figures: BenchFigures): void {
  const pad = (value: string | number, width: number) => String(value).padEnd(width);
  console.log(
    `${pad('variant', 15)}${pad('set', 9)}${pad('platform', 10)}${pad('style', 10)}${pad('split', 9)}${pad('n', 5)}${pad('R@1', 7)}${pad('R@5', 7)}MRR`,
  );
  for (const row of rows) {
    const key = `quality.${row.variant.replaceAll(' ', '_')}.${row.set}.${row.platform}.${row.style}.${row.split}`;
    figures.print(
      `${pad(row.variant, 15)}${pad(row.set, 9)}${pad(row.platform, 10)}${pad(row.style, 10)}${pad(row.split, 9)}${pad(row.queries, 5)}${pad(row.recallAt1.toFixed(3), 7)}${pad(row.recallAt5.toFixed(3), 7)}${row.mrr.toFixed(3)}`,
      {
        [`${key}.recall_at_1`]: higher(row.recallAt1, 'share', EXACT),
        [`${key}.recall_at_5`]: higher(row.recallAt5, 'share', EXACT),
        [`${key}.mrr`]: higher(row.mrr, 'MRR', EXACT),
      },
    );
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = await runPlatformSearchBench();
  const queries = loadQueries();
  const figures = benchFigures(import.meta.url, {
    mode: report.mode,
    first_queries: queries.filter(({ style }) => style === 'first').length,
    written_queries: queries.filter(({ style }) => style !== 'first').length,
  });
  console.log(`platform search quality (${report.mode}; held-out requests were split off by a hash of their text before any tuning):`);
  printQuality(report.quality, figures);
  figures.print(
    `write requests whose top-5 hit carries the required body fields: ${report.writesWithRequiredFields.share} of ${report.writesWithRequiredFields.queries}`,
    {
      'writes_with_required_fields.share': higher(report.writesWithRequiredFields.share, 'share', EXACT),
      'writes_with_required_fields.queries': informational(report.writesWithRequiredFields.queries, 'requests'),
    },
  );
  figures.print(
    `index build (parse + lexical index): Nautobot 1.3.7 ${report.indexBuildMs.nautobot} ms, NetBox 4.2.2 ${report.indexBuildMs.netbox} ms`,
    { 'index_build.nautobot': lower(report.indexBuildMs.nautobot, 'ms'), 'index_build.netbox': lower(report.indexBuildMs.netbox, 'ms') },
  );
  for (const platform of Object.keys(PLATFORMS) as Platform[]) {
    const { p50, p95, samples } = report.stdioSearchMs[platform];
    figures.print(`search through MCP stdio, ${platform}: p50 ${p50} ms, p95 ${p95} ms (${samples} calls)`, {
      [`stdio_search.${platform}.p50`]: lower(p50, 'ms'),
      [`stdio_search.${platform}.p95`]: lower(p95, 'ms'),
    });
    const local = report.inProcessSearchMs[platform];
    figures.print(`search in process, ${platform}: p50 ${local.p50} ms, p95 ${local.p95} ms, mean CPU ${local.meanCpu} ms per search`, {
      [`in_process_search.${platform}.p50`]: lower(local.p50, 'ms'),
      [`in_process_search.${platform}.p95`]: lower(local.p95, 'ms'),
      [`in_process_search.${platform}.mean_cpu`]: lower(local.meanCpu, 'ms'),
    });
  }
  console.log(`machine: load average ${report.machine.loadAverage} on ${report.machine.cores} cores`);
  figures.print(
    `restart to first answer (unchanged description): ${report.restartToFirstAnswerMs} ms from spawn (Node start-up included), ${report.handshakeToFirstAnswerMs} ms from the MCP handshake`,
    {
      'restart_to_first_answer.from_spawn': lower(report.restartToFirstAnswerMs, 'ms'),
      'restart_to_first_answer.from_handshake': lower(report.handshakeToFirstAnswerMs, 'ms'),
    },
  );
  console.log(JSON.stringify({ bench: 'platform-search', ...report }));
}
