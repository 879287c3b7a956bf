import { contentTerms } from '../platform/text.js';

/** A stem keeps at least this many letters ("used" stays "used", "timing" becomes "tim"). */
const MIN_STEM = 4;

/**
 * A light stem, so that a question and the passage that answers it meet across inflections and
 * derivations: "parse", "parses", "parsed" and "parsing"; "retry" and "retried"; "authenticate"
 * and "authentication"; "reconnect" and "reconnection". Applied alike to questions and chunks, so
 * a stem only has to be the same for the words that belong together, not to be a word.
 */
export function stem(term: string): string {
  let word = term;
  for (const suffix of ['ion', 'ing', 'ed']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM) {
      word = word.slice(0, -suffix.length);
      // "stopped" → "stop", but "installed" keeps its "ll" and "passed" its "ss" as "install" and "pass" do.
      if (/([^aeiouylsz])\1$/.test(word)) word = word.slice(0, -1);
      break;
    }
  }
  if (word.endsWith('e') && word.length > MIN_STEM) word = word.slice(0, -1);
  if (word.endsWith('y') && word.length > MIN_STEM - 1) word = `${word.slice(0, -1)}i`;
  return word;
}

/** The words of a question or a passage that say what it is about: function words out, plurals singular, stemmed. */
export function knowledgeTerms(value: string): string[] {
  return contentTerms(value).map(stem);
}
