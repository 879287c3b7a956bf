/** The `q` filter: a case-insensitive substring of any of the given fields. */
export function textMatches(q: string | number | boolean | undefined, ...fields: string[]): boolean {
  if (q === undefined || q === '') return true;
  const needle = String(q).toLowerCase();
  return fields.some((field) => field.toLowerCase().includes(needle));
}
