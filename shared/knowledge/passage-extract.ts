import { terms } from '../platform/text.js';

const GAP = '\n…\n';

/**
 * The passages of a text most relevant to a query, at most `maxChars` characters in all. Passages
 * are lines (code, configuration) or sentences (prose); each scores by the query terms it holds,
 * the best are kept in their original order, and gaps are marked with an ellipsis line.
 */
export function relevantPassages(text: string, query: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const wanted = new Set(terms(query));
  const passages = text
    .split('\n')
    .flatMap((line) => (line.length > 200 ? line.split(/(?<=[.!?])\s+/) : [line]))
    .map((passage, index) => {
      const found = new Set(terms(passage).filter((term) => wanted.has(term)));
      return { passage: passage.length > maxChars ? `${passage.slice(0, maxChars - 1)}…` : passage, index, score: found.size + (found.size > 0 && /\b(def|class)\b|^#+\s/.test(passage) ? 0.5 : 0) };
    })
    .filter(({ passage }) => passage.trim());
  const ranked = [...passages].sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen: typeof passages = [];
  const length = (list: typeof passages) =>
    list
      .sort((a, b) => a.index - b.index)
      .reduce((sum, item, position) => sum + item.passage.length + (position === 0 ? 0 : list[position - 1]!.index + 1 === item.index ? 1 : GAP.length), 0);
  for (const candidate of ranked) {
    if (candidate.score === 0 && chosen.length > 0) break;
    if (length([...chosen, candidate]) <= maxChars) chosen.push(candidate);
  }
  chosen.sort((a, b) => a.index - b.index);
  let out = '';
  chosen.forEach((item, position) => {
    if (position > 0) out += chosen[position - 1]!.index + 1 === item.index ? '\n' : GAP;
    out += item.passage;
  });
  return out.slice(0, maxChars);
}
