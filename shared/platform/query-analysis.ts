import { ACTION_VERBS, detectIntent, VERB_ACTIONS, type Intent } from './intent.js';
import { singular, words } from './text.js';
import { CONCEPTS, CONTEXT_PREPOSITIONS, STOP_WORDS, WEAK_WORDS, type Concept } from './vocabulary.js';

/** One piece of meaning in a query; an endpoint scores the best of its alternatives. */
export interface QueryGroup {
  alternatives: Array<{ term: string; weight: number }>;
  /** Lower for words that only give context ("... to a switch"). */
  weight: number;
  /** Where it came from, for explanations and tests. */
  source: string;
}

export interface AnalysedQuery {
  groups: QueryGroup[];
  intent: Intent;
}

interface PhraseEntry {
  words: string[];
  concept: Concept;
}

const CONTEXT_WEIGHT = 0.5;
const ATTRIBUTE_WEIGHT = 0.6;
/** The word as typed still counts when it was translated, a little below the translation. */
const ORIGINAL_WORD_WEIGHT = 0.7;

/** Vocabulary phrases by first word, longest first, built once per QueryAnalyser. */
function phraseTable(concepts: Concept[]): Map<string, PhraseEntry[]> {
  const table = new Map<string, PhraseEntry[]>();
  for (const concept of concepts) {
    for (const phrase of concept.say) {
      const entryWords = words(phrase).map(singular);
      if (!entryWords.length) continue;
      const list = table.get(entryWords[0]!) ?? [];
      list.push({ words: entryWords, concept });
      table.set(entryWords[0]!, list);
    }
  }
  for (const list of table.values()) list.sort((a, b) => b.words.length - a.words.length);
  return table;
}

function conceptGroups(concept: Concept, typed: string[], weight: number): QueryGroup[] {
  const conceptWeight = concept.weight ?? 0.9;
  const groups = concept.means.split(' ').map((group, index) => ({
    // Alternatives are listed in order of preference: later ones count a little less.
    alternatives: group.split('|').map((term, rank) => ({ term, weight: conceptWeight * (rank === 0 ? 1 : 0.95) })),
    weight,
    source: typed.join(' '),
  }));
  if (typed.length === 1 && groups[0]) {
    const typedWord = typed[0]!;
    const own = groups[0].alternatives.find((alt) => alt.term === typedWord);
    if (own) {
      // "site" means site first, location only where the platform has no sites.
      for (const alt of groups[0].alternatives) alt.weight = alt === own ? 1 : Math.min(alt.weight, 0.85);
    } else groups[0].alternatives.push({ term: typedWord, weight: ORIGINAL_WORD_WEIGHT });
  }
  return groups;
}

/**
 * Turns a request in plain words into weighted search groups and an intent: vocabulary phrases
 * first (longest match), then single words (stop words dropped, weak words down-weighted), then
 * compounds of neighbouring words that the index knows (`device type` → `devicetype`).
 */
export class QueryAnalyser {
  private readonly phrases: Map<string, PhraseEntry[]>;

  constructor(concepts: Concept[] = CONCEPTS) {
    this.phrases = phraseTable(concepts);
  }

  analyse(query: string, knows: (term: string) => boolean): AnalysedQuery {
    const intent = detectIntent(query);
    const raw = words(query);
    const tokens = raw.map(singular);
    const groups: QueryGroup[] = [];
    // "Change the description of an interface": for an update, "the <attribute> of/on/for a <thing>"
    // names an attribute first and the object after the preposition.
    const attributeFirst = Boolean(intent.methods.PATCH || intent.methods.PUT) && /^\W*\w+\s+the\s+\w+(\s+\w+)?\s+(of|on|for|in)\b/i.test(query);
    let seenContent = false;
    let inContext = false;
    let previous: { term: string; index: number } | undefined;
    let head: 'plural' | 'singular' | undefined;
    for (let i = 0; i < tokens.length; ) {
      const token = tokens[i]!;
      const weight = attributeFirst ? (inContext ? 1 : ATTRIBUTE_WEIGHT) : inContext ? CONTEXT_WEIGHT : 1;
      const phrase = this.phrases.get(token)?.find((entry) => entry.words.every((word, k) => tokens[i + k] === word));
      if (phrase) {
        groups.push(...conceptGroups(phrase.concept, phrase.words, weight));
        const last = raw[i + phrase.words.length - 1]!;
        head ??= last !== singular(last) ? 'plural' : 'singular';
        seenContent = true;
        previous = undefined;
        i += phrase.words.length;
        continue;
      }
      if (CONTEXT_PREPOSITIONS.has(token) && seenContent) inContext = true;
      const isVerb = intent.verb !== undefined && raw[i] === intent.verb;
      const action = isVerb ? VERB_ACTIONS[token] : undefined;
      if (action) {
        groups.push({ alternatives: [{ term: action, weight: 1 }], weight: 1, source: raw[i]! });
        i += 1;
        continue;
      }
      if (STOP_WORDS.has(token) || (isVerb && !ACTION_VERBS.has(token))) {
        i += 1;
        continue;
      }
      const weak = WEAK_WORDS[token];
      groups.push({ alternatives: [{ term: token, weight: 1 }], weight: weight * (weak ?? 1), source: raw[i]! });
      if (weak === undefined && !isVerb) {
        seenContent = true;
        head ??= raw[i] !== token ? 'plural' : 'singular';
      }
      if (previous && previous.index === i - 1) {
        const compound = previous.term + token;
        if (knows(compound)) groups.push({ alternatives: [{ term: compound, weight: 1 }], weight, source: `${previous.term} ${token}` });
      }
      previous = { term: token, index: i };
      i += 1;
    }
    // "Delete stale VLANs": a plural object means many, unless an id points at one.
    const many = intent.many || (head === 'plural' && intent.one !== 'id');
    return { groups: dedupe(groups), intent: { ...intent, many, listing: intent.listing || (many && Boolean(intent.methods.GET)) } };
  }
}

function dedupe(groups: QueryGroup[]): QueryGroup[] {
  const byKey = new Map<string, QueryGroup>();
  for (const group of groups) {
    const key = group.alternatives.map((alt) => `${alt.term}:${alt.weight}`).sort().join(',');
    const existing = byKey.get(key);
    if (!existing || existing.weight < group.weight) byKey.set(key, group);
  }
  return [...byKey.values()];
}
