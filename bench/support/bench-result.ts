/**
 * What one benchmark run leaves behind: its figures, the settings they were measured with and the
 * machine they were measured on. A run writes `bench/results/NAME.json` (not committed); the
 * committed `bench/baseline/NAME.json` is a run someone chose to compare later runs against.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const BASELINE_DIR = path.join(BENCH_DIR, 'baseline');

/** Which way a figure improves; `none` for what only describes the run (sizes, counts of samples). */
export type Better = 'higher' | 'lower' | 'none';

export interface Figure {
  /** null when the run had nothing to measure (a percentile of no samples, a ratio over zero). */
  value: number | null;
  unit: string;
  better: Better;
  /** The bar the figure should clear: a floor when higher is better, a ceiling when lower is. */
  target?: number;
  /** Per cent this figure moves by from run to run on its own; a worse change beyond it is marked. */
  noise?: number;
}

/** What a run was asked to measure (turns, concurrency, sizes, model): runs with other settings are not compared. */
export type Settings = Record<string, string | number | boolean>;

export interface BenchResult {
  bench: string;
  settings: Settings;
  machine: {
    cpu: string;
    cores: number;
    node: string;
    /** One-minute load average when the run started and ended: on a shared machine it explains much. */
    loadAverage: { start: number; end: number };
  };
  run: { date: string; commit: string; dirty: boolean; seconds: number };
  figures: Record<string, Figure>;
}

export const resultFile = (dir: string, bench: string) => path.join(dir, `${bench}.json`);

export function readResult(file: string): BenchResult | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BenchResult) : undefined;
}

export function writeResult(file: string, result: BenchResult): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
}
