import { el } from './dom.js';

/** "just now", "42 s ago", "5 min ago", "3 h ago", or the local date and time. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1_000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 48 * 3_600) return `${Math.floor(seconds / 3_600)} h ago`;
  return new Date(iso).toLocaleString();
}

/** A `<time>` with the relative time as text and the exact time as a tooltip; "never" without a time. */
export function timeElement(iso: string | null): HTMLElement {
  if (!iso) return el('span', { class: 'muted' }, 'never');
  return el('time', { datetime: iso, title: new Date(iso).toLocaleString() }, relativeTime(iso));
}

/** A state as a coloured pill (`data-status` picks the colour); "Unknown" without one. */
export function badge(status: string | undefined): HTMLElement {
  const name = status ?? 'Unknown';
  return el('span', { class: 'badge', 'data-status': name.toLowerCase().replace(/[^a-z]+/g, '-') }, name);
}
