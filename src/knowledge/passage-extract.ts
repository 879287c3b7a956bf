import { knowledgeTerms } from './knowledge-terms.js';

const GAP = '\n…\n';
/** Names of code in a question (`UND_ERR_HEADERS_TIMEOUT`, `keepAliveTimeout`, `os.path`): a line that holds one whole is where it is defined or explained. */
const IDENTIFIER = /\b[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b/g;
const STRONGEST_LINE = 0.5;
/** Lines after the best run that come along when the budget allows. */
const FOLLOWING_LINES = 3;

interface Unit {
  text: string;
  index: number;
  terms: Set<string>;
}

/** What a query looks for (its content terms and the names of code it holds), as the set of them a line holds. */
function queryTerms(query: string): (line: string) => Set<string> {
  const wanted = new Set(knowledgeTerms(query));
  const identifiers = [...new Set([...query.matchAll(IDENTIFIER)].map(([name]) => name.toLowerCase()))];
  // A name written whole is a term of its own, kept apart from words by its leading `=`.
  return (line) => {
    const lower = line.toLowerCase();
    return new Set([
      ...knowledgeTerms(line).filter((term) => wanted.has(term)),
      ...identifiers.filter((name) => lower.includes(name)).map((name) => `=${name}`),
    ]);
  };
}

/** A text's lines, a line too long for the budget as its sentences, each with the query terms it holds. */
function textUnits(text: string, termsOf: (line: string) => Set<string>, maxChars: number): Unit[] {
  return text
    .split('\n')
    .flatMap((line) => (line.length > maxChars ? line.split(/(?<=[.!?])\s+/) : [line]))
    .map((line, index) => ({ text: line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line, index, terms: termsOf(line) }));
}

/**
 * The passage of a text that answers a query, at most `maxChars` characters: the contiguous run of
 * lines (sentences of a line too long to fit) that covers the most query weight, where a query
 * word weighs more the fewer lines of this text hold it, function words weigh nothing and a name
 * of code the query holds counts once more where it is written whole; then,
 * budget left, the next best lines elsewhere and the few lines right after the run; gaps are marked
 * by an ellipsis line.
 */
export function relevantPassages(text: string, query: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const units = textUnits(text, queryTerms(query), maxChars);
  const holding = new Map<string, number>();
  for (const unit of units) for (const term of unit.terms) holding.set(term, (holding.get(term) ?? 0) + 1);
  const weight = (term: string) => Math.log(1 + units.length / (holding.get(term) ?? 1));
  const unitScore = (unit: Unit) => [...unit.terms].reduce((sum, term) => sum + weight(term), 0);

  // The best window: the query weight it covers (each word once) and its strongest line.
  let best = { start: 0, end: 0, score: -1 };
  for (let start = 0; start < units.length; start++) {
    if (unitScore(units[start]!) === 0) continue;
    const covered = new Set<string>();
    let chars = -1;
    let strongest = 0;
    for (let end = start; end < units.length; end++) {
      chars += units[end]!.text.length + 1;
      if (chars > maxChars) break;
      for (const term of units[end]!.terms) covered.add(term);
      strongest = Math.max(strongest, unitScore(units[end]!));
      // A window ends on a line that holds something; trailing filler adds nothing.
      if (units[end]!.terms.size === 0) continue;
      // The words it covers, and how much of the question one of its lines holds at once.
      // Of equal windows the shortest, so filler around the answer is not taken.
      const score = [...covered].reduce((sum, term) => sum + weight(term), 0) + STRONGEST_LINE * strongest - chars / (1_000 * maxChars);
      if (score > best.score) best = { start, end: end + 1, score };
    }
  }
  if (best.score < 0)
    return units
      .map(({ text: line }) => line)
      .join('\n')
      .slice(0, maxChars);
  const chosen = units.slice(best.start, best.end);
  const length = (list: Unit[]) =>
    list.reduce(
      (sum, unit, position) =>
        sum + unit.text.length + (position === 0 ? 0 : list[position - 1]!.index + 1 === unit.index ? 1 : GAP.length),
      0,
    );
  const others = units
    .filter((unit) => (unit.index < best.start || unit.index >= best.end) && unit.terms.size > 0)
    .sort((a, b) => unitScore(b) - unitScore(a) || a.index - b.index);
  for (const unit of others) {
    const candidate = [...chosen, unit].sort((a, b) => a.index - b.index);
    if (length(candidate) <= maxChars) chosen.splice(0, chosen.length, ...candidate);
  }
  // Budget left: the lines right after the best run (a condition's body, the text under a heading,
  // the value after a key), where the answer to what matched most often is.
  for (let next = best.end; next < Math.min(best.end + FOLLOWING_LINES, units.length); next++) {
    const candidate = [...chosen, units[next]!].sort((a, b) => a.index - b.index);
    if (chosen.includes(units[next]!) || length(candidate) > maxChars) continue;
    chosen.splice(0, chosen.length, ...candidate);
  }
  let out = '';
  chosen.forEach((unit, position) => {
    if (position > 0) out += chosen[position - 1]!.index + 1 === unit.index ? '\n' : GAP;
    out += unit.text;
  });
  return out.slice(0, maxChars);
}
