/** A day as YYYY-MM-DD that the calendar has: `2026-02-30` and `2026-13-01` are not. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === value;
}

/** An RFC 3339 instant (offset required) on a calendar day and a clock time that exist. */
export function isCalendarDateTime(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) &&
    isCalendarDate(value.slice(0, 10)) &&
    !Number.isNaN(Date.parse(value.replace(' ', 'T')))
  );
}
