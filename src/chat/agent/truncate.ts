/**
 * `text` cut to at most `limit` characters plus a marker saying how much was left out, so the model
 * knows it saw part of a result (and can ask for less).
 */
export function truncateWithMarker(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[truncated: ${text.length - limit} of ${text.length} characters left out]`;
}
