import type { Schemas } from '../../src/api/openapi-types.js';

export { daysBefore, daysBetween, utcDay } from '../../src/chat/usage/utc-days.js';
export { sumFigures, type UsageFigures } from '../../src/chat/usage/usage-figures.js';

/** Token usage per UTC day, user and model, with the caller's own budgets. */
export const USAGE = '/api/plugins/ai-ops/usage/';

export type Usage = Schemas['Usage'];
export type UsageBudget = Schemas['UsageBudget'];

/** What a usage request may narrow it to; an empty or missing value does not narrow. */
export interface UsageFilter {
  user?: string;
  model?: string;
  since?: string;
  until?: string;
}

/** The usage request for `filter`. */
export function usagePath(filter: UsageFilter): string {
  const query = new URLSearchParams(Object.entries(filter).filter((entry): entry is [string, string] => Boolean(entry[1])));
  return query.size > 0 ? `${USAGE}?${query}` : USAGE;
}

/** A UTC day as people read it, in the browser's language: "3 May" (`withYear`: "3 May 2026"). */
export function dayLabel(day: string, withYear = false): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    ...(withYear ? { year: 'numeric' } : {}),
  });
}

/** "12,345" in the browser's language. */
export function tokenCount(count: number): string {
  return count.toLocaleString();
}

/** "cost $0.0061", or that it is unknown. */
export function costPhrase(cost: number | null): string {
  return cost === null ? 'cost unknown (a model has no price)' : `cost ${costText(cost)}`;
}

/** A cost at the models' prices, in US dollars: four decimals under 1, two above; "no price" when a model in it has none. */
export function costText(cost: number | null): string {
  if (cost === null) return 'no price';
  const decimals = cost > 0 && cost < 1 ? 4 : 2;
  return cost.toLocaleString(undefined, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}
