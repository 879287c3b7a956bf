import { stemmer } from 'stemmer';
import { contentTerms } from '../kernel/text.js';

/**
 * The words of a question or a passage that say what it is about: function words out, plurals
 * singular, each word reduced to its Porter stem so that a question and the passage that answers
 * it meet across inflections and derivations ("parse", "parsed", "parsing"; "retry", "retried";
 * "reconnect", "reconnection"; "time", "timing"). Questions, chunks and the passage picker all
 * read text through this one function, so a stem only has to be the same for the words that
 * belong together, not to be a word.
 */
export function knowledgeTerms(value: string): string[] {
  return contentTerms(value).map(stemmer);
}
