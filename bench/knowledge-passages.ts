// Knowledge-base answer quality on a real repository: a local bare Git repository built at run time
// from a pinned dependency's own files (undici: its documentation, library code and type
// declarations, as installed under node_modules), indexed through the real KnowledgeBase (lexical,
// unless EMBEDDING_MODEL or EMBEDDING_MODEL_PATH names a model to measure the dense search with),
// asked the written questions of `bench/fixtures/undici-questions.jsonl`.
// Each question names the file that answers it and a short literal phrase of the answering passage.
// The first 56 answer passages their writer chose; the rest answer passages drawn at random from
// the documentation's prose lines and the code's comments and constants (see the README).
// Printed: the right file in the top 5, the answering passage in the chunk returned from that file,
// the same with optimize_for_llm, and plain BM25 over 1,500-character chunks as the baseline; per
// half of the questions (split by a hash of their text: tune on `tune`, `check` is held back).
// Run alone with `node --import tsx bench/knowledge-passages.ts`.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/roles/config.js';
import { openDenseParts } from '../src/embeddings/embeddings.wiring.js';
import { buildKnowledgeParts, knowledgeBase } from '../src/knowledge/knowledge.wiring.js';
import type { KnowledgeBase } from '../src/knowledge/knowledge-base.service.js';
import type { DenseParts } from '../src/embeddings/embeddings.wiring.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { words } from '../src/kernel/text.js';
import { createRemote } from '../test/knowledge/support/git-remote.js';
import { benchFigures, EXACT, higher, informational, lower } from './support/figures.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = path.join(ROOT, 'node_modules/undici');
const REPOSITORY = 'bench/undici';
const TOP = 5;
const BASELINE_CHUNK = 1_500;
const LATENCY_ROUNDS = 2;

interface Question {
  question: string;
  /** The file that answers it, relative to the package root. */
  file: string;
  /** A short literal phrase of the answering passage. */
  phrase: string;
}

type Half = 'tune' | 'check';

export interface PassageQuality {
  questions: number;
  /** The right file is among the first five hits. */
  fileAt5: number;
  /** The first hit from the right file (within the five) holds the answering phrase. */
  passage: number;
  /** 95% Wilson interval of `passage`: on a few dozen questions one more right moves it by 0.02 to 0.04. */
  passageInterval: [number, number];
  /** 95% Wilson interval of `fileAt5`. */
  fileAt5Interval: [number, number];
}

export interface KnowledgePassagesReport {
  package: string;
  /** How the knowledge base searched: `lexical`, or `dense (model)`. */
  search: string;
  files: number;
  chunks: number;
  rows: Array<{ half: Half | 'all'; mode: 'full chunk' | 'optimize_for_llm' | 'plain BM25, 1,500-char chunks' } & PassageQuality>;
  /** Milliseconds of one search (full chunks, five hits) through the knowledge base, warm, over three rounds of the questions. */
  searchMs: { p50: number; p95: number };
  /** Questions whose answering passage the full chunk missed, for the tuning half only. */
  tuneMisses: string[];
}

const round = (value: number) => Math.round(value * 1000) / 1000;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
};
/** Whitespace and Markdown line breaks do not decide whether a passage holds a phrase. */
const flat = (text: string) => text.replace(/\s+/g, ' ').toLowerCase();
const halfOf = (question: string): Half => (createHash('sha256').update(question).digest()[0]! % 2 === 0 ? 'tune' : 'check');

function loadQuestions(): Question[] {
  return readFileSync(path.join(ROOT, 'bench/fixtures/undici-questions.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Question);
}

/** The package's documentation, library code and type declarations, by path. */
function packageFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(PACKAGE, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(child);
      } else if (/\.(?:md|js|ts)$/.test(entry.name)) files[child] = readFileSync(path.join(PACKAGE, child), 'utf8');
    }
  };
  for (const top of ['README.md', 'index.js', 'index.d.ts']) files[top] = readFileSync(path.join(PACKAGE, top), 'utf8');
  for (const folder of ['docs', 'lib', 'types']) walk(folder);
  return files;
}

interface Hit {
  file: string;
  content: string;
}

function judge(question: Question, hits: Hit[]): { file: boolean; passage: boolean } {
  const first = hits.slice(0, TOP).find(({ file }) => file === question.file);
  return { file: first !== undefined, passage: first !== undefined && flat(first.content).includes(flat(question.phrase)) };
}

/** The 95% Wilson score interval of a proportion of `n`. */
function wilson(share: number, n: number): [number, number] {
  const z = 1.96;
  const centre = (share + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((share * (1 - share)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

function summarise(judged: Array<{ file: boolean; passage: boolean }>): PassageQuality {
  const n = judged.length || 1;
  const passage = judged.filter((entry) => entry.passage).length / n;
  const fileAt5 = judged.filter(({ file }) => file).length / n;
  return {
    questions: judged.length,
    fileAt5: round(fileAt5),
    passage: round(passage),
    passageInterval: wilson(passage, n),
    fileAt5Interval: wilson(fileAt5, n),
  };
}

/** The baseline: BM25 (k1 1.2, b 0.75) over every word, on consecutive 1,500-character slices of each file. */
function plainBm25(files: Record<string, string>): (query: string) => Hit[] {
  const chunks = Object.entries(files).flatMap(([file, text]) =>
    Array.from({ length: Math.ceil(text.length / BASELINE_CHUNK) }, (_, k) => ({
      file,
      content: text.slice(k * BASELINE_CHUNK, (k + 1) * BASELINE_CHUNK),
    })),
  );
  const counted = chunks.map((chunk) => {
    const terms = words(chunk.content);
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    return { chunk, tf, length: terms.length };
  });
  const df = new Map<string, number>();
  for (const { tf } of counted) for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const average = counted.reduce((sum, { length }) => sum + length, 0) / counted.length;
  return (query) => {
    const terms = words(query);
    return counted
      .map(({ chunk, tf, length }) => ({
        chunk,
        score: terms.reduce((sum, term) => {
          const f = tf.get(term) ?? 0;
          if (f === 0) return sum;
          const idf = Math.log(1 + (counted.length - df.get(term)! + 0.5) / (df.get(term)! + 0.5));
          return sum + (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * length) / average));
        }, 0),
      }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, TOP)
      .map(({ chunk }) => chunk);
  };
}

async function ask(kb: KnowledgeBase, question: string, optimize: boolean): Promise<Hit[]> {
  const answer = await kb.search(question, TOP, optimize);
  return answer.results.map(({ file_path, content }) => ({ file: file_path, content }));
}

export async function runKnowledgePassagesBench(): Promise<KnowledgePassagesReport> {
  const questions = loadQuestions();
  const files = packageFiles();
  const missing = questions.filter(({ file, phrase }) => !files[file]?.includes(phrase));
  if (missing.length) throw new Error(`questions whose phrase is not in their file: ${missing.map(({ question }) => question).join('; ')}`);
  const root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-passages-'));
  let dense: DenseParts | undefined;
  try {
    const remote = createRemote(root, REPOSITORY, files);
    const dataDir = path.join(root, 'data');
    // Lexical by default: a benchmark never downloads a model unless asked to.
    const { EMBEDDING_MODEL = 'none', EMBEDDING_MODEL_PATH } = process.env;
    const config = loadConfig({ GIT_BASE_URL: remote.baseUrl, EMBEDDING_MODEL, ...(EMBEDDING_MODEL_PATH ? { EMBEDDING_MODEL_PATH } : {}) });
    dense = await openDenseParts(config.vectors, dataDir);
    const parts = await buildKnowledgeParts(config.knowledge, { dataDir, logger: silentLogger(), ...dense });
    await parts.lists.add({ name: REPOSITORY, branch: 'main', file_patterns: ['.md', '.js', '.ts'] });
    const indexed = await parts.indexer.index(REPOSITORY);
    const kb = knowledgeBase(parts, silentLogger());
    const baseline = plainBm25(files);
    // The first search builds the BM25 index: it is not a search's latency.
    await ask(kb, questions[0]!.question, false);
    const judged = [];
    const durations: number[] = [];
    for (const question of questions) {
      const started = performance.now();
      const full = await ask(kb, question.question, false);
      durations.push(performance.now() - started);
      judged.push({
        question,
        half: halfOf(question.question),
        full: judge(question, full),
        optimized: judge(question, await ask(kb, question.question, true)),
        baseline: judge(question, baseline(question.question)),
      });
    }
    // Two more rounds of the same searches: on a shared machine one round's tail is mostly other work.
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      for (const question of questions) {
        const started = performance.now();
        await ask(kb, question.question, false);
        durations.push(performance.now() - started);
      }
    }
    const rows: KnowledgePassagesReport['rows'] = [];
    for (const half of ['tune', 'check', 'all'] as const) {
      const mine = judged.filter((entry) => half === 'all' || entry.half === half);
      rows.push({ half, mode: 'full chunk', ...summarise(mine.map(({ full }) => full)) });
      rows.push({ half, mode: 'optimize_for_llm', ...summarise(mine.map(({ optimized }) => optimized)) });
      rows.push({ half, mode: 'plain BM25, 1,500-char chunks', ...summarise(mine.map(({ baseline: plain }) => plain)) });
    }
    const version = (JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
    // A model that does not load leaves the knowledge base lexical: say which search was measured.
    const mode = (await parts.store()).mode;
    return {
      package: `undici ${version}`,
      search: mode === 'dense' ? `dense (${EMBEDDING_MODEL_PATH ?? EMBEDDING_MODEL})` : 'lexical',
      files: indexed.files_total,
      chunks: indexed.documents,
      rows,
      searchMs: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
      tuneMisses: judged
        .filter(({ half, full, optimized }) => half === 'tune' && (!full.passage || !optimized.passage))
        .map(
          ({ question, full, optimized }) =>
            `${question.question} [file ${full.file ? 'yes' : 'no'}, chunk ${full.passage ? 'yes' : 'no'}, optimized ${optimized.passage ? 'yes' : 'no'}]`,
        ),
    };
  } finally {
    await dense?.vectors?.close();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = await runKnowledgePassagesBench();
  const figures = benchFigures(import.meta.url, {
    package: report.package,
    search: report.search,
    questions: report.rows.at(-1)!.questions,
  });
  figures.print(`knowledge-base passages on ${report.package} (${report.files} files, ${report.chunks} chunks, ${report.search}):`, {
    files: informational(report.files, 'files'),
    chunks: informational(report.chunks, 'chunks'),
  });
  const pad = (value: string | number, width: number) => String(value).padEnd(width);
  const interval = ([low, high]: [number, number]) => `${low.toFixed(2)}-${high.toFixed(2)}`;
  console.log(
    `${pad('half', 7)}${pad('mode', 32)}${pad('n', 5)}${pad('file@5', 8)}${pad('95% interval', 14)}${pad('passage', 9)}95% interval`,
  );
  const modeKeys = { 'full chunk': 'full_chunk', optimize_for_llm: 'optimize_for_llm', 'plain BM25, 1,500-char chunks': 'plain_bm25' };
  for (const row of report.rows) {
    const key = `${row.half}.${modeKeys[row.mode]}`;
    figures.print(
      `${pad(row.half, 7)}${pad(row.mode, 32)}${pad(row.questions, 5)}${pad(row.fileAt5.toFixed(3), 8)}${pad(interval(row.fileAt5Interval), 14)}${pad(row.passage.toFixed(3), 9)}${interval(row.passageInterval)}`,
      { [`${key}.file_at_5`]: higher(row.fileAt5, 'share', EXACT), [`${key}.passage`]: higher(row.passage, 'share', EXACT) },
    );
  }
  figures.print(`search (full chunks, 5 hits): p50 ${report.searchMs.p50.toFixed(2)} ms, p95 ${report.searchMs.p95.toFixed(2)} ms`, {
    'search.p50': lower(report.searchMs.p50, 'ms'),
    'search.p95': lower(report.searchMs.p95, 'ms'),
  });
  if (process.argv.includes('--misses')) for (const miss of report.tuneMisses) console.log(`tune miss: ${miss}`);
  console.log(JSON.stringify({ bench: 'knowledge-passages', ...report }));
}
