/**
 * A run's figures against the baseline's: the change of each in per cent, marked worse or better
 * when it moved the figure's way by more than its noise. Runs made with different settings are not
 * compared at all; runs on another machine or Node are compared, with the difference said.
 */
import type { BenchResult, Better, Figure, Settings } from './bench-result.js';

/** Per cent a figure may move by on its own before a change counts, unless the figure names its own. */
export const DEFAULT_NOISE_PERCENT = 10;

export type Verdict = 'worse' | 'better' | 'within noise' | 'informational' | 'missing now' | 'new' | 'no value' | 'unit changed';

export interface FigureComparison {
  key: string;
  unit: string;
  baseline?: number | null;
  now?: number | null;
  /** (now - baseline) / |baseline| in per cent; ±Infinity from a baseline of 0. */
  change?: number;
  noise?: number;
  verdict: Verdict;
  target?: { value: number; better: Better; met: boolean };
}

export interface BenchComparison {
  bench: string;
  /** Settings whose values differ; any such difference means the figures were not compared. */
  settingsDiffer: Array<{ setting: string; baseline?: Settings[string]; now?: Settings[string] }>;
  /** Machine facts that differ (CPU, cores, Node): compared anyway, but said. */
  machineDiffers: string[];
  figures: FigureComparison[];
}

export function changePercent(baseline: number, now: number): number {
  if (baseline === 0) return now === 0 ? 0 : Math.sign(now) * Infinity;
  return ((now - baseline) / Math.abs(baseline)) * 100;
}

function verdictOf(better: Better, change: number, noise: number): Verdict {
  if (better === 'none') return 'informational';
  const gain = better === 'higher' ? change : -change;
  if (gain < -noise) return 'worse';
  if (gain > noise) return 'better';
  return 'within noise';
}

function targetOf(figure: Figure): FigureComparison['target'] {
  if (figure.target === undefined || figure.value === null || figure.better === 'none') return undefined;
  const met = figure.better === 'higher' ? figure.value >= figure.target : figure.value <= figure.target;
  return { value: figure.target, better: figure.better, met };
}

function compareFigure(key: string, was: Figure | undefined, now: Figure | undefined, defaultNoise: number): FigureComparison {
  if (!now) return { key, unit: was!.unit, baseline: was!.value, verdict: 'missing now' };
  const target = targetOf(now);
  const shown = { key, unit: now.unit, now: now.value, ...(target ? { target } : {}) };
  if (!was) return { ...shown, verdict: 'new' };
  if (was.unit !== now.unit) return { ...shown, baseline: was.value, verdict: 'unit changed' };
  if (was.value === null || now.value === null) return { ...shown, baseline: was.value, verdict: 'no value' };
  const change = changePercent(was.value, now.value);
  const noise = now.noise ?? defaultNoise;
  return { ...shown, baseline: was.value, change, noise, verdict: verdictOf(now.better, change, noise) };
}

export function compareRuns(baseline: BenchResult, now: BenchResult, defaultNoise = DEFAULT_NOISE_PERCENT): BenchComparison {
  const settingsDiffer = [...new Set([...Object.keys(baseline.settings), ...Object.keys(now.settings)])]
    .filter((setting) => baseline.settings[setting] !== now.settings[setting])
    .map((setting) => ({ setting, baseline: baseline.settings[setting], now: now.settings[setting] }));
  const machineDiffers = (['cpu', 'cores', 'node'] as const)
    .filter((fact) => baseline.machine[fact] !== now.machine[fact])
    .map((fact) => `${fact} ${baseline.machine[fact]} (baseline) against ${now.machine[fact]} (now)`);
  const keys = [...new Set([...Object.keys(baseline.figures), ...Object.keys(now.figures)])];
  return {
    bench: now.bench,
    settingsDiffer,
    machineDiffers,
    figures: settingsDiffer.length > 0 ? [] : keys.map((key) => compareFigure(key, baseline.figures[key], now.figures[key], defaultNoise)),
  };
}

/** As many digits as a change is read by: 1234.5 → 1235, 12.345 → 12.3, 1.2345 → 1.23, 0.012345 → 0.0123. */
export function formatValue(value: number | null | undefined): string {
  if (value === undefined) return '';
  if (value === null) return 'none';
  if (Number.isInteger(value)) return String(value);
  const size = Math.abs(value);
  return size >= 1 ? value.toFixed(size >= 100 ? 0 : size >= 10 ? 1 : 2) : String(Number(value.toPrecision(3)));
}

function formatChange(change: number | undefined): string {
  if (change === undefined) return '';
  if (!Number.isFinite(change)) return change > 0 ? '+inf%' : '-inf%';
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`;
}

function note(figure: FigureComparison): string {
  const parts: string[] = [];
  if (figure.verdict === 'worse') parts.push(`WORSE (noise ${figure.noise}%)`);
  else if (figure.verdict === 'better') parts.push('better');
  else if (figure.verdict !== 'within noise' && figure.verdict !== 'informational') parts.push(figure.verdict);
  if (figure.target)
    parts.push(
      `target ${figure.target.better === 'higher' ? '>=' : '<='} ${figure.target.value}: ${figure.target.met ? 'met' : 'NOT met'}`,
    );
  return parts.join('; ');
}

const loadOf = (result: BenchResult) => `${result.machine.loadAverage.start} to ${result.machine.loadAverage.end}`;

/** The comparison as lines of a plain table, to print and to quote. */
export function formatComparison(comparison: BenchComparison, baseline: BenchResult, now: BenchResult): string[] {
  const lines = [
    `${comparison.bench} against its baseline of ${baseline.run.date.slice(0, 10)} (commit ${baseline.run.commit.slice(0, 10)})`,
    `  load average ${loadOf(baseline)} in the baseline, ${loadOf(now)} now (on ${now.machine.cores} cores)`,
  ];
  if (comparison.settingsDiffer.length > 0) {
    lines.push('  not compared: the runs used different settings');
    for (const { setting, baseline: was, now: current } of comparison.settingsDiffer) {
      lines.push(`    ${setting}: ${String(was ?? '(unset)')} in the baseline, ${String(current ?? '(unset)')} now`);
    }
    return lines;
  }
  for (const difference of comparison.machineDiffers) lines.push(`  another machine: ${difference}`);
  const rows = comparison.figures.map((figure) => [
    figure.key,
    figure.unit,
    formatValue(figure.baseline),
    formatValue(figure.now),
    formatChange(figure.change),
    note(figure),
  ]);
  const header = ['figure', 'unit', 'baseline', 'now', 'change', ''];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const align = (row: string[]) =>
    `  ${row.map((cell, column) => (column >= 2 && column <= 4 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ')}`.trimEnd();
  return [...lines, align(header), ...rows.map(align)];
}
