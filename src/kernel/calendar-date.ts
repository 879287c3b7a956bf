/** A day as YYYY-MM-DD that the calendar has: `2026-02-30` and `2026-13-01` are not. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === value;
}

/** An RFC 3339 instant (with an offset, as the validator's own check takes it) on a calendar day, at a clock time that exists. */
export function isCalendarDateTime(value: string): boolean {
  const parts = /^(\d{4}-\d{2}-\d{2})[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]\d{2}(:?\d{2})?)$/.exec(value);
  return parts !== null && isCalendarDate(parts[1]!);
}
