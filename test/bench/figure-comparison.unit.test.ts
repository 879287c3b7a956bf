import { expect } from 'chai';
import type { BenchResult, Figure } from '../../bench/support/bench-result.js';
import { changePercent, compareRuns, formatComparison, formatValue, type FigureComparison } from '../../bench/support/figure-comparison.js';
import { BenchFigures, EXACT, higher, informational, lower } from '../../bench/support/figures.js';

function run(
  figures: Record<string, Figure>,
  changes: { settings?: BenchResult['settings']; machine?: Partial<BenchResult['machine']> } = {},
): BenchResult {
  return {
    bench: 'chat',
    settings: changes.settings ?? { BENCH_TURNS: 2000, BENCH_CONCURRENCY: 16 },
    machine: { cpu: 'Xeon', cores: 2, node: 'v20.20.2', loadAverage: { start: 1, end: 1 }, ...changes.machine },
    run: { date: '2026-01-02T03:04:05.000Z', commit: 'abcdef0123456789', dirty: false, seconds: 60 },
    figures,
  };
}

const byKey = (figures: FigureComparison[]) => Object.fromEntries(figures.map((figure) => [figure.key, figure]));

describe('benchmark figures against the baseline', () => {
  it('gives the change in per cent of the baseline, infinite from a baseline of zero', () => {
    expect(changePercent(200, 250)).to.equal(25);
    expect(changePercent(200, 150)).to.equal(-25);
    expect(changePercent(-4, -2)).to.equal(50);
    expect(changePercent(0, 0)).to.equal(0);
    expect(changePercent(0, 3)).to.equal(Infinity);
  });

  it('marks a figure worse only when it moved the wrong way by more than the noise, by its direction', () => {
    const baseline = run({
      throughput: higher(1000, 'turns/s'),
      dropped: higher(1000, 'turns/s'),
      p50: lower(10, 'ms'),
      p99: lower(10, 'ms'),
      faster: lower(10, 'ms'),
      chunks: informational(100, 'chunks'),
    });
    const now = run({
      throughput: higher(950, 'turns/s'), // -5%: noise
      dropped: higher(850, 'turns/s'), // -15%: worse
      p50: lower(11.5, 'ms'), // +15%: worse
      p99: lower(12, 'ms', { noise: 30 }), // +20%, but p99 moves by 30% on its own
      faster: lower(8, 'ms'), // -20%: better
      chunks: informational(300, 'chunks'), // a size: never graded
    });
    const figures = byKey(compareRuns(baseline, now, 10).figures);
    expect(figures.throughput!.verdict).to.equal('within noise');
    expect(figures.dropped!.verdict).to.equal('worse');
    expect(figures.p50!.verdict).to.equal('worse');
    expect(figures.p50!.change).to.be.closeTo(15, 1e-9);
    expect(figures.p99!.verdict).to.equal('within noise');
    expect(figures.faster!.verdict).to.equal('better');
    expect(figures.chunks!.verdict).to.equal('informational');
    expect(figures.chunks!.change).to.equal(200);
  });

  it('marks any drop of a figure without noise, such as a recall on a fixed query set', () => {
    const figures = compareRuns(run({ recall: higher(0.86, 'share', EXACT) }), run({ recall: higher(0.85, 'share', EXACT) })).figures;
    expect(figures[0]!.verdict).to.equal('worse');
  });

  it('takes the default noise from the caller', () => {
    const figures = compareRuns(run({ p50: lower(10, 'ms') }), run({ p50: lower(11.5, 'ms') }), 20).figures;
    expect(figures[0]!.verdict).to.equal('within noise');
  });

  it('counts any failure where there were none as worse', () => {
    const figures = compareRuns(run({ failed: lower(0, 'turns') }), run({ failed: lower(1, 'turns') })).figures;
    expect(figures[0]!.verdict).to.equal('worse');
    expect(formatComparison({ bench: 'chat', settingsDiffer: [], machineDiffers: [], figures }, run({}), run({})).join('\n')).to.include(
      '+inf%',
    );
  });

  it('names the figures missing on either side, without a value, or whose unit changed', () => {
    const baseline = run({ gone: lower(1, 'ms'), empty: lower(1, 'ms'), seconds: lower(1, 's') });
    const now = run({ added: lower(1, 'ms'), empty: lower(NaN, 'ms'), seconds: lower(1000, 'ms') });
    const figures = byKey(compareRuns(baseline, now).figures);
    expect(figures.gone).to.include({ verdict: 'missing now', baseline: 1 });
    expect(figures.added).to.include({ verdict: 'new', now: 1 });
    expect(figures.empty).to.include({ verdict: 'no value', now: null });
    expect(figures.seconds!.verdict).to.equal('unit changed');
  });

  it('says whether the latest value meets the target, a floor or a ceiling by direction', () => {
    const now = run({ ratio: higher(0.4, 'x', { target: 0.5 }), added: lower(3, 'ms', { target: 5 }) });
    const figures = byKey(compareRuns(run({ ratio: higher(0.6, 'x'), added: lower(3, 'ms') }), now).figures);
    expect(figures.ratio!.target).to.deep.equal({ value: 0.5, better: 'higher', met: false });
    expect(figures.added!.target).to.deep.equal({ value: 5, better: 'lower', met: true });
  });

  it('refuses to compare runs made with different settings, naming them', () => {
    const baseline = run({ p50: lower(10, 'ms') });
    const now = run({ p50: lower(50, 'ms') }, { settings: { BENCH_TURNS: 500, BENCH_CONCURRENCY: 16, BENCH_SOAK_S: 0 } });
    const comparison = compareRuns(baseline, now);
    expect(comparison.figures).to.deep.equal([]);
    expect(comparison.settingsDiffer).to.deep.equal([
      { setting: 'BENCH_TURNS', baseline: 2000, now: 500 },
      { setting: 'BENCH_SOAK_S', baseline: undefined, now: 0 },
    ]);
    const printed = formatComparison(comparison, baseline, now).join('\n');
    expect(printed).to.include('not compared');
    expect(printed).to.include('BENCH_SOAK_S: (unset) in the baseline, 0 now');
    expect(printed).not.to.include('WORSE');
  });

  it('compares runs on another machine or Node, saying so', () => {
    const comparison = compareRuns(
      run({ p50: lower(10, 'ms') }),
      run({ p50: lower(10, 'ms') }, { machine: { cores: 8, node: 'v22.1.0' } }),
    );
    expect(comparison.figures).to.have.length(1);
    expect(comparison.machineDiffers).to.deep.equal([
      'cores 2 (baseline) against 8 (now)',
      'node v20.20.2 (baseline) against v22.1.0 (now)',
    ]);
  });

  it('prints a table with a marker on the worse figures', () => {
    const baseline = run({ 'chat.p50': lower(10, 'ms'), 'chat.throughput': higher(400, 'turns/s') });
    const now = run({ 'chat.p50': lower(12, 'ms'), 'chat.throughput': higher(410, 'turns/s') });
    const lines = formatComparison(compareRuns(baseline, now), baseline, now);
    expect(lines[0]).to.equal('chat against its baseline of 2026-01-02 (commit abcdef0123)');
    expect(lines[1]).to.equal('  load average 1 to 1 in the baseline, 1 to 1 now (on 2 cores)');
    expect(lines.find((line) => line.includes('chat.p50'))).to.match(/10\s+12\s+\+20\.0%\s+WORSE \(noise 10%\)$/);
    expect(lines.find((line) => line.includes('chat.throughput'))).to.match(/400\s+410\s+\+2\.5%$/);
  });

  it('prints values with the digits a change is read by', () => {
    expect([1234.5, 12.345, 1.2345, 0.012345, 42, null].map(formatValue)).to.deep.equal(['1235', '12.3', '1.23', '0.0123', '42', 'none']);
  });
});

describe('benchmark figure recording', () => {
  it('keeps six significant digits and no value for what is not a number', () => {
    expect(lower(1.23456789, 'ms').value).to.equal(1.23457);
    expect(higher(Infinity, 'x').value).to.equal(null);
    expect(lower(NaN, 'ms').value).to.equal(null);
  });

  it('refuses a figure recorded twice under one key', () => {
    const figures = new BenchFigures();
    figures.record({ p50: lower(1, 'ms') });
    expect(() => figures.record({ p50: lower(2, 'ms') })).to.throw('figure p50 recorded twice');
  });
});
