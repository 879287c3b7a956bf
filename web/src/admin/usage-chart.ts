import { el } from '../dom.js';
import { costPhrase, costText, dayLabel, daysBetween, tokenCount, type Usage, type UsageFigures } from '../usage.js';

/** One day of the chart: its figures, zero on a day without usage. */
export type ChartDay = UsageFigures & { day: string };

const SVG_NS = 'http://www.w3.org/2000/svg';
/** The drawing's own units; it scales to the width it is given. */
const WIDTH = 720;
const HEIGHT = 260;
const PLOT = { left: 60, right: 64, top: 14, bottom: 34 };
/** Horizontal grid lines above zero. */
const TICKS = 4;
/** Day labels under the axis, at most. */
const DAY_LABELS = 8;

/** `<tag>` in the SVG namespace, built from attributes and children like `el`. */
function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/** A round step (1, 2, 2.5 or 5 times a power of ten) that divides `max` into about `TICKS` parts. */
function niceStep(max: number): number {
  const rough = max / TICKS;
  const power = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 2.5, 5, 10].find((factor) => factor * power >= rough) ?? 10) * power;
}

/** "1.2K" in the browser's language. */
const compact = (value: number) => value.toLocaleString(undefined, { notation: 'compact', maximumFractionDigits: 1 });

/** Every day of the report's period, in order, days without usage at zero. */
export function everyDay(report: Usage): ChartDay[] {
  const byDay = new Map(report.days.map((day) => [day.day, day]));
  return daysBetween(report.since, report.until).map((day) => {
    const { input_tokens = 0, output_tokens = 0, cost = 0 } = byDay.get(day) ?? {};
    return { day, input_tokens, output_tokens, cost };
  });
}

/** The chart in words: what it draws, the totals and the busiest day (its long description). */
function describe(days: ChartDay[], total: UsageFigures): string {
  const busiest = days.reduce((top, day) => (day.input_tokens + day.output_tokens > top.input_tokens + top.output_tokens ? day : top));
  const first = days[0]!.day;
  const last = days[days.length - 1]!.day;
  return (
    `Bars: input and output tokens per UTC day, ${dayLabel(first, true)} to ${dayLabel(last, true)}; line: cost per day. ` +
    `In all ${tokenCount(total.input_tokens)} input and ${tokenCount(total.output_tokens)} output tokens, ${costPhrase(total.cost)}. ` +
    `Busiest day ${dayLabel(busiest.day, true)}: ${tokenCount(busiest.input_tokens + busiest.output_tokens)} tokens.`
  );
}

/**
 * Tokens in and out per day as stacked bars over a token axis (left), and the cost per day as a
 * line over a cost axis (right, only when some day has a known cost). An image to assistive
 * technology, named by its title and described in words; the same figures are in `usageTable`.
 */
export function usageChart(days: ChartDay[], total: UsageFigures, id: string): SVGSVGElement {
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const bottom = PLOT.top + plotHeight;
  const tokenStep = niceStep(Math.max(1, ...days.map((day) => day.input_tokens + day.output_tokens)));
  const tokenMax = tokenStep * TICKS;
  const costs = days.map((day) => day.cost ?? 0);
  const showCost = costs.some((cost) => cost > 0);
  const costStep = niceStep(Math.max(...costs, Number.EPSILON));
  const costMax = costStep * TICKS;
  const slot = plotWidth / days.length;
  const barWidth = Math.max(1, slot * 0.7);
  const yTokens = (value: number) => bottom - (value / tokenMax) * plotHeight;
  const yCost = (value: number) => bottom - (value / costMax) * plotHeight;
  const centre = (index: number) => PLOT.left + slot * (index + 0.5);

  const grid = Array.from({ length: TICKS + 1 }, (_unused, tick) => {
    const y = yTokens(tick * tokenStep);
    return svg(
      'g',
      {},
      svg('line', { class: 'chart-grid', x1: PLOT.left, x2: PLOT.left + plotWidth, y1: y, y2: y }),
      svg('text', { class: 'chart-label', x: PLOT.left - 6, y: y + 4, 'text-anchor': 'end' }, compact(tick * tokenStep)),
      ...(showCost ? [svg('text', { class: 'chart-label', x: PLOT.left + plotWidth + 6, y: y + 4 }, costText(tick * costStep))] : []),
    );
  });
  const labelEvery = Math.ceil(days.length / DAY_LABELS);
  const dayLabels = days.flatMap((day, index) =>
    index % labelEvery === 0
      ? [svg('text', { class: 'chart-label', x: centre(index), y: bottom + 18, 'text-anchor': 'middle' }, dayLabel(day.day))]
      : [],
  );
  const bars = days.map((day, index) => {
    const x = centre(index) - barWidth / 2;
    const inputTop = yTokens(day.input_tokens);
    const outputTop = yTokens(day.input_tokens + day.output_tokens);
    return svg(
      'g',
      { 'data-day': day.day },
      svg('rect', { class: 'chart-input', x, y: inputTop, width: barWidth, height: bottom - inputTop }),
      svg('rect', { class: 'chart-output', x, y: outputTop, width: barWidth, height: inputTop - outputTop }),
    );
  });
  // The line breaks at a day whose cost is unknown rather than pass for a value there; a dot marks each day that cost something.
  const runs: string[][] = [[]];
  days.forEach((day, index) => {
    if (day.cost === null) runs.push([]);
    else runs[runs.length - 1]!.push(`${centre(index)},${yCost(day.cost)}`);
  });
  const costLine = showCost
    ? [
        ...runs.filter((run) => run.length > 1).map((run) => svg('polyline', { class: 'chart-cost', points: run.join(' ') })),
        ...days.flatMap((day, index) =>
          day.cost ? [svg('circle', { class: 'chart-cost-point', cx: centre(index), cy: yCost(day.cost), r: 3.5 })] : [],
        ),
      ]
    : [];
  return svg(
    'svg',
    {
      id,
      class: 'chart',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-labelledby': `${id}-title`,
      'aria-describedby': `${id}-desc`,
    },
    svg('title', { id: `${id}-title` }, 'Tokens and cost per day'),
    svg('desc', { id: `${id}-desc` }, describe(days, total)),
    ...grid,
    ...bars,
    ...costLine,
    svg('line', { class: 'chart-axis', x1: PLOT.left, x2: PLOT.left + plotWidth, y1: bottom, y2: bottom }),
    ...dayLabels,
  );
}

/** The chart's legend: what each colour stands for. */
export function usageLegend(withCost: boolean): HTMLElement {
  const entry = (kind: string, text: string) => el('li', {}, el('span', { class: `legend-swatch ${kind}`, 'aria-hidden': 'true' }), text);
  return el(
    'ul',
    { class: 'chart-legend', 'aria-label': 'Legend' },
    entry('chart-input', 'Input tokens (left axis)'),
    entry('chart-output', 'Output tokens (left axis)'),
    withCost ? entry('chart-cost', 'Cost (right axis)') : null,
  );
}

/** The chart's figures as a table, day by day: what the chart shows, for reading and for screen readers. */
export function usageTable(days: ChartDay[]): HTMLElement {
  const number = (text: string) => el('td', { class: 'number' }, text);
  return el(
    'table',
    { class: 'usage-days' },
    el('caption', {}, 'Tokens and cost per UTC day'),
    el(
      'thead',
      {},
      el('tr', {}, ...['Day', 'Input tokens', 'Output tokens', 'Cost'].map((heading) => el('th', { scope: 'col' }, heading))),
    ),
    el(
      'tbody',
      {},
      ...days.map((day) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, el('time', { datetime: day.day }, dayLabel(day.day, true))),
          number(tokenCount(day.input_tokens)),
          number(tokenCount(day.output_tokens)),
          number(costText(day.cost)),
        ),
      ),
    ),
  );
}
