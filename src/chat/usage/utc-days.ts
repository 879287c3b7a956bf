/** Usage is counted per UTC day; these name and walk the days (the admin and chat pages use them too). */

const DAY_MS = 86_400_000;

/** The UTC day of an instant, YYYY-MM-DD. */
export function utcDay(at: number | Date): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The instant the UTC day of `at` ends (the next midnight, UTC). */
export function endOfUtcDay(at: number): number {
  return (Math.floor(at / DAY_MS) + 1) * DAY_MS;
}

/** The UTC day `days` before `day` (both YYYY-MM-DD). */
export function daysBefore(day: string, days: number): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS);
}

/** The UTC days from `since` to `until`, both YYYY-MM-DD and included. */
export function daysBetween(since: string, until: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${since}T00:00:00Z`); at <= Date.parse(`${until}T00:00:00Z`); at += DAY_MS) days.push(utcDay(at));
  return days;
}

/** A wait of `seconds` as a person reads it: `23 h 11 min`, `42 min`, `30 s`. */
export function waitInWords(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  const hours = Math.floor(minutes / 60);
  if (hours === 0) return `${minutes} min`;
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
