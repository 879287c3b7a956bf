/**
 * A benchmark's figures as data: each printed line names the figures it shows (a stable key, the
 * value, its unit, which way is better, a target), and when the process ends cleanly they are
 * written to `bench/results/NAME.json` with the run's settings and the machine, for `bench/run.ts`
 * to compare against the committed baseline.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESULTS_DIR, resultFile, writeResult, type BenchResult, type Better, type Figure, type Settings } from './bench-result.js';

interface FigureOptions {
  target?: number;
  /** Per cent this figure moves by on its own between runs, when the default does not fit it. */
  noise?: number;
}

const figure = (better: Better, value: number, unit: string, options: FigureOptions): Figure => ({
  // Six significant digits: more says nothing a run repeats, and the JSON stays readable.
  value: Number.isFinite(value) ? Number(value.toPrecision(6)) : null,
  unit,
  better,
  ...options,
});

/** For a figure the same input always gives (a recall on a fixed query set): any change is a real one. */
export const EXACT: FigureOptions = { noise: 0 };

export const higher = (value: number, unit: string, options: FigureOptions = {}) => figure('higher', value, unit, options);
export const lower = (value: number, unit: string, options: FigureOptions = {}) => figure('lower', value, unit, options);
/** A size or a count that describes the run rather than grades it. */
export const informational = (value: number, unit: string) => figure('none', value, unit, {});

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: path.dirname(fileURLToPath(import.meta.url)), encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return undefined; // not a checkout (an unpacked release): the run still counts
  }
}

export class BenchFigures {
  private readonly recorded: Record<string, Figure> = {};

  /** Prints a line as the benchmark always has and records the figures it shows. */
  print(line: string, figures: Record<string, Figure>): void {
    console.log(line);
    this.record(figures);
  }

  record(figures: Record<string, Figure>): void {
    for (const [key, value] of Object.entries(figures)) {
      if (key in this.recorded) throw new Error(`figure ${key} recorded twice`);
      this.recorded[key] = value;
    }
  }

  get figures(): Readonly<Record<string, Figure>> {
    return this.recorded;
  }
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * The figures of the benchmark in `moduleUrl` (its file name names it), measured with `settings`.
 * They are written when the process exits with 0 only: a failed run leaves no result to compare.
 */
export function benchFigures(moduleUrl: string, settings: Settings): BenchFigures {
  const bench = path.basename(fileURLToPath(moduleUrl), '.ts');
  const figures = new BenchFigures();
  const started = new Date();
  const loadAtStart = os.loadavg()[0]!;
  const run = {
    date: started.toISOString(),
    commit: git(['rev-parse', 'HEAD']) ?? 'unknown',
    dirty: (git(['status', '--porcelain']) ?? '') !== '',
  };
  process.on('exit', (code) => {
    if (code !== 0 || Object.keys(figures.figures).length === 0) return;
    const result: BenchResult = {
      bench,
      settings,
      machine: {
        cpu: os.cpus()[0]?.model ?? 'unknown',
        cores: os.availableParallelism(),
        node: process.version,
        loadAverage: { start: round(loadAtStart), end: round(os.loadavg()[0]!) },
      },
      run: { ...run, seconds: Math.round((Date.now() - started.getTime()) / 1_000) },
      figures: { ...figures.figures },
    };
    writeResult(resultFile(RESULTS_DIR, bench), result);
  });
  return figures;
}
