import type { Config } from '../../roles/config.js';
import { ValidationError } from '../../kernel/errors.js';
import { commandLogger } from '../../kernel/logging/logger.js';
import { openUsageReport } from '../../roles/usage.js';
import { writeTable } from '../table.js';

export interface UsageCommandOptions {
  user?: string;
  model?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

function day(name: 'since' | 'until', value: string | undefined): string | undefined {
  if (value !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))))
    throw ValidationError.field(name, `'${value}' is not a date (YYYY-MM-DD).`);
  return value;
}

const figure = (value: number | null) => (value === null ? '-' : value.toFixed(4));

/** `aiops usage`: tokens (and cost) per UTC day, user and model, as a table or JSON. */
export async function listUsage(config: Config, options: UsageCommandOptions, out: NodeJS.WritableStream): Promise<number> {
  const filter = {
    ...(options.user ? { user: options.user } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.since ? { since: day('since', options.since) } : {}),
    ...(options.until ? { until: day('until', options.until) } : {}),
  };
  const logger = commandLogger('error');
  const { report, close } = await openUsageReport(config, logger);
  let usage: Awaited<ReturnType<typeof report.query>>;
  try {
    usage = await report.query(filter);
  } finally {
    await close();
  }
  if (options.json) {
    out.write(`${JSON.stringify(usage, null, 2)}\n`);
    return 0;
  }
  const rows = [
    ['DAY', 'USER', 'MODEL', 'PROVIDER', 'INPUT', 'OUTPUT', 'COST (USD)'],
    ...usage.days.flatMap(({ day: date, rows: dayRows }) =>
      dayRows.map((row) => [
        date,
        row.user,
        row.model,
        row.provider,
        String(row.input_tokens),
        String(row.output_tokens),
        figure(row.cost),
      ]),
    ),
    ['total', '', '', '', String(usage.total.input_tokens), String(usage.total.output_tokens), figure(usage.total.cost)],
  ];
  writeTable(out, rows);
  return 0;
}
