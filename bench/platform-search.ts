// Endpoint search benchmark: quality on the development queries (lexical only), index build time,
// search latency through MCP stdio, and time from a restart to the first answer with an unchanged
// description. Run alone with `npm run build && node --import tsx bench/platform-search.ts`.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseDescription } from '../shared/platform/endpoint-document.js';
import { EndpointSearch } from '../shared/platform/endpoint-search.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(ROOT, 'test/fixtures/openapi');

interface Query {
  query: string;
  expected: Array<{ method: string; path: string }>;
}

export interface PlatformSearchReport {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  indexBuildMs: { nautobot: number; netbox: number };
  stdioSearchMs: { p50: number; p95: number; samples: number };
  /** From spawning the compiled process (Node start-up and imports included) to the first search answer. */
  restartToFirstAnswerMs: number;
  /** From the MCP handshake of the restarted process to its first search answer. */
  handshakeToFirstAnswerMs: number;
  mode: 'lexical';
  vectorStore: 'none';
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

async function quality(queries: Query[]): Promise<Pick<PlatformSearchReport, 'recallAt1' | 'recallAt5' | 'mrr'>> {
  const search = new EndpointSearch(parseDescription(JSON.parse(readFileSync(path.join(FIXTURES, 'nautobot-openapi.json'), 'utf8'))).endpoints);
  let at1 = 0;
  let at5 = 0;
  let reciprocal = 0;
  for (const { query, expected } of queries) {
    const results = await search.search(query, 10);
    const rank = results.findIndex(({ endpoint }) => expected.some((e) => e.method === endpoint.method && e.path === endpoint.specPath));
    if (rank === 0) at1 += 1;
    if (rank >= 0 && rank < 5) at5 += 1;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
  }
  return { recallAt1: round(at1 / queries.length), recallAt5: round(at5 / queries.length), mrr: round(reciprocal / queries.length) };
}

function buildTime(file: string): number {
  const text = readFileSync(path.join(FIXTURES, file), 'utf8');
  const started = performance.now();
  new EndpointSearch(parseDescription(JSON.parse(text)).endpoints);
  return round(performance.now() - started, 1);
}

/** A platform serving the Nautobot description on loopback. */
async function startPlatform(): Promise<{ url: string; close: () => Promise<void> }> {
  const description = readFileSync(path.join(FIXTURES, 'nautobot-openapi.json'));
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
  const result = (await client.callTool({ name: 'platform_openapi_api_request_schema', arguments: { query, n_results: 5 } })) as CallToolResult;
  if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
  return result;
}

export async function runPlatformSearchBench(): Promise<PlatformSearchReport> {
  const queries = readFileSync(path.join(FIXTURES, 'endpoint-queries.dev.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Query);
  const platform = await startPlatform();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-bench-'));
  try {
    const first = await startMcp(platform.url, dataDir);
    await search(first, 'warm up');
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const { query } of queries) {
        const started = performance.now();
        await search(first, query);
        latencies.push(performance.now() - started);
      }
    }
    await first.close();
    latencies.sort((a, b) => a - b);

    const restarted = performance.now();
    const second = await startMcp(platform.url, dataDir);
    const connected = performance.now();
    await search(second, queries[0]!.query);
    const restartMs = performance.now() - restarted;
    const handshakeMs = performance.now() - connected;
    await second.close();

    return {
      queries: queries.length,
      ...(await quality(queries)),
      indexBuildMs: { nautobot: buildTime('nautobot-openapi.json'), netbox: buildTime('netbox-openapi.json') },
      stdioSearchMs: { p50: round(percentile(latencies, 50), 2), p95: round(percentile(latencies, 95), 2), samples: latencies.length },
      restartToFirstAnswerMs: Math.round(restartMs),
      handshakeToFirstAnswerMs: Math.round(handshakeMs),
      mode: 'lexical',
      vectorStore: 'none',
    };
  } finally {
    await platform.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = await runPlatformSearchBench();
  console.log(`platform search (dev set, ${report.queries} queries, ${report.mode}): recall@1 ${report.recallAt1}, recall@5 ${report.recallAt5}, MRR ${report.mrr}`);
  console.log(`index build (parse + lexical index): Nautobot 1.3.7 ${report.indexBuildMs.nautobot} ms, NetBox 4.2.2 ${report.indexBuildMs.netbox} ms`);
  console.log(`search through MCP stdio: p50 ${report.stdioSearchMs.p50} ms, p95 ${report.stdioSearchMs.p95} ms (${report.stdioSearchMs.samples} calls)`);
  console.log(
    `restart to first answer (unchanged description): ${report.restartToFirstAnswerMs} ms from spawn (Node start-up included), ${report.handshakeToFirstAnswerMs} ms from the MCP handshake`,
  );
  console.log(JSON.stringify({ bench: 'platform-search', ...report }));
}
