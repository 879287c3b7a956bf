/**
 * `npm run bench`: runs every benchmark in this folder, one child process each so that they do
 * not share a heap or an event loop, and prints their figures, then each one's figures against its
 * committed baseline (`bench/baseline/NAME.json`). `npm run bench -- NAME` runs the ones named;
 * `--noise PERCENT` sets how far a figure may move on its own (default 10, unless it names its own);
 * `--update-baseline [NAME...]` runs nothing and makes the latest results the baseline.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BASELINE_DIR, readResult, RESULTS_DIR, resultFile } from './support/bench-result.js';
import { compareRuns, DEFAULT_NOISE_PERCENT, formatComparison, formatValue } from './support/figure-comparison.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: options, positionals: wanted } = parseArgs({
  allowPositionals: true,
  options: { 'update-baseline': { type: 'boolean', default: false }, noise: { type: 'string' } },
});
const noise = options.noise === undefined ? DEFAULT_NOISE_PERCENT : Number(options.noise);
if (!(noise >= 0)) throw new Error(`--noise takes a percentage, not ${options.noise}`);
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => path.basename(file, '.ts'))
  .filter((name) => wanted.length === 0 || wanted.some((prefix) => name.startsWith(prefix)))
  .sort();

function updateBaseline(): void {
  mkdirSync(BASELINE_DIR, { recursive: true });
  for (const bench of benches) {
    const latest = readResult(resultFile(RESULTS_DIR, bench));
    if (!latest) {
      console.log(`${bench}: no latest result (run it first: npm run bench -- ${bench})`);
      continue;
    }
    copyFileSync(resultFile(RESULTS_DIR, bench), resultFile(BASELINE_DIR, bench));
    const dirty = latest.run.dirty ? ', with uncommitted changes' : '';
    console.log(`${bench}: baseline is now the run of ${latest.run.date} (commit ${latest.run.commit.slice(0, 10)}${dirty})`);
  }
}

/** Runs one benchmark; answers the figures that came out worse than the baseline's, as lines. */
function runBench(bench: string): { ok: boolean; worse: string[] } {
  console.log(`\n== ${bench}`);
  rmSync(resultFile(RESULTS_DIR, bench), { force: true });
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, `${bench}.ts`)], { stdio: 'inherit' });
  if (child.status !== 0) {
    console.log(`${bench} failed (exit ${child.status ?? child.signal})`);
    return { ok: false, worse: [] };
  }
  const latest = readResult(resultFile(RESULTS_DIR, bench));
  const baseline = readResult(resultFile(BASELINE_DIR, bench));
  if (!latest) {
    console.log(`${bench} recorded no figures`);
    return { ok: true, worse: [] };
  }
  if (!baseline) {
    console.log(`\n${bench} has no baseline yet (npm run bench -- --update-baseline ${bench} makes this run the baseline)`);
    return { ok: true, worse: [] };
  }
  const comparison = compareRuns(baseline, latest, noise);
  console.log(`\n${formatComparison(comparison, baseline, latest).join('\n')}`);
  const worse = comparison.figures
    .filter((figure) => figure.verdict === 'worse')
    .map((figure) => `${bench} ${figure.key}: ${formatValue(figure.baseline)} → ${formatValue(figure.now)} ${figure.unit}`);
  return { ok: true, worse };
}

if (options['update-baseline']) updateBaseline();
else {
  let failed = 0;
  const worse: string[] = [];
  for (const bench of benches) {
    const outcome = runBench(bench);
    if (!outcome.ok) failed++;
    worse.push(...outcome.worse);
  }
  if (worse.length > 0) console.log(`\nworse than the baseline beyond their noise:\n  ${worse.join('\n  ')}`);
  process.exitCode = failed > 0 ? 1 : 0;
}
