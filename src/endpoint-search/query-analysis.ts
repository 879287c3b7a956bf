import { ACTION_VERBS, detectIntent, VERB_ACTIONS, VERB_OBJECTS, verbMethods, type Intent } from './intent.js';
import { findLiterals, LITERAL_MEANS, withoutLiterals, type Literal } from './literals.js';
import { singular, words } from '../kernel/text.js';
import { CONCEPTS, CONTEXT_PREPOSITIONS, STOP_WORDS, WEAK_WORDS, type Concept } from './vocabulary.js';

/** One piece of meaning in a query; an endpoint scores the best of its alternatives. */
export interface QueryGroup {
  alternatives: Array<{ term: string; weight: number }>;
  /** Lower for words that only give context ("... to a switch"). */
  weight: number;
  /** Where it came from, for explanations and tests. */
  source: string;
  /** In a link ("put VLAN 310 on the trunk"): the object linked (`object`) or the one it is linked to (`target`). */
  side?: 'object' | 'target';
}

/** What the index tells the analyser about words. */
export interface IndexWords {
  /** The index has this term somewhere. */
  knows(term: string): boolean;
  /** The term names a resource in some path (`device`, `bookmark`): a noun, read as a verb only where grammar says so. */
  isResource(term: string): boolean;
  /** The resources a distinctive word of the platform's own descriptions points at (`failed` → `jobresult`). */
  meaning?(term: string): string[] | undefined;
  /** The resources whose field two or three singular words name (`upstream speed` → `circuittermination`), if few do. */
  fieldOf?(words: string[]): string[] | undefined;
  /** True when a resource has a many-valued field of another (`user`, `group`). */
  holdsMany?(resource: string, held: string): boolean;
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
/** How much a resource counts when a request says one of its distinctive field or enum words, compared with naming it. */
const SPEC_WORD_WEIGHT = 0.6;
/** How much a resource counts when a request names one of its fields of several words (`commit rate`). */
const SPEC_FIELD_WEIGHT = 0.9;
/** A bare name points at a device or virtual machine, softly. */
const NAME_WEIGHT = 0.5;
const NAMED = 'device|virtualmachine';
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
  // Longest first; of equal length, a reading that depends on the rest of the request before the plain one.
  for (const list of table.values())
    list.sort((a, b) => b.words.length - a.words.length || Number(Boolean(b.concept.when)) - Number(Boolean(a.concept.when)));
  return table;
}

function conceptGroups(concept: Concept, typed: string[], weight: number): QueryGroup[] {
  const conceptWeight = concept.weight ?? 0.9;
  const groups = concept.means.split(' ').map((group) => ({
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

  /**
   * The first literal of each kind as a word group: what it names counts fully unless a noun before
   * it already said what is asked. A bare name is read from its letters where the vocabulary
   * knows them (`psu1` a power supply, `leaf-07` a device, `app-vm-9` a virtual machine), else as a device's or VM's, softly; after
   * a noun ("rack R12") the noun says what it names.
   */
  private literalGroups(
    literals: Literal[],
    text: string,
    firstContent: number | undefined,
    { verbAt, linkAt }: Pick<Intent, 'verbAt' | 'linkAt'>,
  ): QueryGroup[] {
    const groups: QueryGroup[] = [];
    const seen = new Set<string>();
    for (const literal of literals) {
      const before = words(text.slice(0, literal.start));
      const read = this.literalGroup(literal, before, seen, firstContent, verbAt);
      // In a link, a literal before the preposition is the object linked, one after it the other object.
      const side: QueryGroup['side'] = linkAt === undefined ? undefined : before.length <= linkAt ? 'object' : 'target';
      groups.push(...read.map((group) => (side ? { ...group, side } : group)));
    }
    return groups;
  }

  private literalGroup(
    literal: Literal,
    before: string[],
    seen: Set<string>,
    firstContent: number | undefined,
    verbAt: number | undefined,
  ): QueryGroup[] {
    if (literal.kind === 'filter') {
      // "site=ams1": the key is a filter of what is listed, context only.
      const key = singular(literal.text.split('=')[0]!.split('__')[0]!.replace(/_id$/, ''));
      return [{ alternatives: [{ term: key.replace(/_/g, ''), weight: 1 }], weight: CONTEXT_WEIGHT, source: literal.text }];
    }
    if (seen.has(literal.kind)) return [];
    seen.add(literal.kind);
    if (literal.kind === 'name') {
      const previous = before.at(-1);
      const afterNoun =
        previous !== undefined && before.length - 1 !== verbAt && !STOP_WORDS.has(previous) && !CONTEXT_PREPOSITIONS.has(previous);
      if (afterNoun) return [];
      const weight = before.length === (verbAt ?? -2) + 1 ? 1 : NAME_WEIGHT;
      // The first letter run of the name the vocabulary knows: `psu1`, `leaf-07`, `app-vm-9`, `edge-rtr-1`.
      const known = (literal.text.toLowerCase().match(/[a-z]+/g) ?? [])
        .map((part) => ({
          part: singular(part),
          concept: this.phrases.get(singular(part))?.find((entry) => entry.words.length === 1 && !entry.concept.when)?.concept,
        }))
        .find(({ concept }) => concept !== undefined);
      return known ? conceptGroups(known.concept!, [known.part], weight) : [meansGroup(NAMED, weight, literal.text)];
    }
    const means = LITERAL_MEANS[literal.kind];
    return means
      ? [meansGroup(means, firstContent !== undefined && firstContent < before.length ? ATTRIBUTE_WEIGHT : 1, literal.text)]
      : [];
  }

  /** True for a word of the vocabulary's phrases (`isp`, `dc`), which is a word, never a name. */
  private says(word: string): boolean {
    return this.phrases.has(word) || STOP_WORDS.has(word) || WEAK_WORDS[word] !== undefined;
  }

  /**
   * Reads a request against the words of one index.
   */
  analyse(typed: string, index: IndexWords): AnalysedQuery {
    const knows = (term: string) => index.knows(term);
    const isNoun = (term: string) => index.isResource(term);
    // "re-run", "re-sync": one verb.
    const query = typed.replace(/\bre-(?=[a-z])/gi, 're');
    const literals = findLiterals(query, (word) => knows(word) || knows(singular(word)) || this.says(word));
    const text = withoutLiterals(query, literals);
    const raw = words(text);
    const tokens = raw.map(singular);
    const said = new Set([...tokens, ...raw]);
    const literalBefore = new Set(literals.map((literal) => words(text.slice(0, literal.start)).length));
    const intent = detectIntent(text, {
      words: raw,
      literalBefore,
      namesObject: literals.some(({ kind }) => kind !== 'filter' && kind !== 'id'),
      hasId: literals.some(({ kind }) => kind === 'id'),
      isNoun: (word) => isNoun(singular(word)),
      isThing: (word) => this.phrases.get(singular(word))?.some((entry) => entry.words.length === 1) ?? false,
      ...(index.holdsMany ? { holdsMany: (resource: string, held: string) => index.holdsMany!(singular(resource), singular(held)) } : {}),
    });
    const groups: QueryGroup[] = [];
    // "Change the description of an interface": for an update, "the <attribute> of/on/for a <thing>"
    // names an attribute first and the object after the preposition.
    const attributeFirst =
      Boolean(intent.methods.PATCH || intent.methods.PUT) && /^\W*\w+\s+the\s+\w+(\s+\w+)?\s+(of|on|for|in)\b/i.test(text);
    let seenContent = false;
    /** Word position of the first content word: a literal after it describes rather than names what is asked. */
    let firstContent: number | undefined;
    const objectLiterals = new Set(
      literals.filter(({ kind }) => kind !== 'filter' && kind !== 'id').map((literal) => words(text.slice(0, literal.start)).length),
    );
    let inContext = false;
    /** After a link's preposition: the other object, until the next preposition. */
    let inTarget = false;
    let side: QueryGroup['side'];
    const add = (...list: QueryGroup[]) => groups.push(...list.map((group) => (side ? { ...group, side } : group)));
    // The head noun is the last word of the first run of content words ("stale cables", "wireless lan").
    let head: 'plural' | 'singular' | undefined;
    let headDone = false;
    let anyPlural = false;
    const tokenWeights: number[] = tokens.map(() => 1);
    const properNouns = new Set(
      [...text.matchAll(/\b[A-Z][A-Za-z0-9]*/g)]
        .filter((match) => /\w/.test(text.slice(0, match.index)))
        .flatMap((match) => words(match[0])),
    );
    let namedByWord = false;
    for (let i = 0; i < tokens.length;) {
      const token = tokens[i]!;
      // A literal before this word ("move fw-dmz-1 into rack R12") was content: what follows a preposition is context.
      if (objectLiterals.has(i)) seenContent = true;
      if (intent.linkAt !== undefined) side = i < intent.linkAt ? 'object' : inTarget || i === intent.linkAt ? 'target' : undefined;
      if (i === intent.particleAt) {
        i += 1;
        continue;
      }
      if (i === intent.linkAt) {
        inTarget = true;
        inContext = false;
        i += 1;
        continue;
      }
      const weight = attributeFirst ? (inContext ? 1 : ATTRIBUTE_WEIGHT) : inContext ? CONTEXT_WEIGHT : 1;
      tokenWeights[i] = weight;
      const isVerb = intent.verbAt === i;
      const action = isVerb ? (VERB_ACTIONS[token] ?? VERB_ACTIONS[raw[i]!]) : undefined;
      if (action) {
        add({ alternatives: [{ term: action, weight: 1 }], weight: 1, source: raw[i]! });
        i += 1;
        continue;
      }
      const made = isVerb ? (VERB_OBJECTS[token] ?? VERB_OBJECTS[raw[i]!]) : undefined;
      if (made) {
        add(meansGroup(made, 1, raw[i]!));
        i += 1;
        continue;
      }
      const phrase = this.phrases
        .get(token)
        ?.find(
          (entry) =>
            entry.words.every((word, k) => tokens[i + k] === word) &&
            (!entry.concept.when || entry.concept.when.some((word) => said.has(word))),
        );
      // The request's verb is not one of its nouns ("make" is not a vendor here), unless it names what it
      // makes ("bookmark core-rtr-1"), opens a longer phrase ("allocate the next IP") or no verb list knows it ("carve").
      const verbIsWord =
        (isNoun(token) && !verbMethods(raw[i]!)) ||
        ACTION_VERBS.has(token) ||
        (phrase !== undefined && (phrase.words.length > 1 || !verbMethods(raw[i]!)));
      // A phrasal verb ("free up") is only the verb.
      if (isVerb && (!verbIsWord || intent.particleAt !== undefined)) {
        i += 1;
        continue;
      }
      // A field of the platform's own model named in several words says more than the vocabulary's reading of one of them.
      const field =
        isVerb || !index.fieldOf
          ? undefined
          : [3, 2].map((size) => tokens.slice(i, i + size)).find((part) => part.length >= 2 && index.fieldOf!(part));
      if (field && (!phrase || phrase.words.length < field.length)) {
        add({
          alternatives: index.fieldOf!(field)!.map((term) => ({ term, weight: SPEC_FIELD_WEIGHT })),
          weight,
          source: raw.slice(i, i + field.length).join(' '),
        });
        seenContent = true;
        firstContent ??= i;
        i += field.length;
        continue;
      }
      if (phrase) {
        add(...conceptGroups(phrase.concept, phrase.words, weight));
        const last = raw[i + phrase.words.length - 1]!;
        if (!headDone) head = last !== singular(last) ? 'plural' : 'singular';
        anyPlural ||= last !== singular(last);
        seenContent = true;
        firstContent ??= i;
        i += phrase.words.length;
        continue;
      }
      if (CONTEXT_PREPOSITIONS.has(token) && seenContent) {
        inContext = true;
        inTarget = false;
      }
      if (STOP_WORDS.has(token) || STOP_WORDS.has(raw[i]!) || token.length === 1) {
        if (seenContent) headDone = true;
        i += 1;
        continue;
      }
      const weak = WEAK_WORDS[token];
      // A capitalised word nobody knows where the object belongs ("enrol the new Meraki MX") is a product or host name.
      if (!namedByWord && !seenContent && !inContext && !isVerb && weak === undefined && !knows(token) && properNouns.has(raw[i]!)) {
        add(meansGroup(NAMED, NAME_WEIGHT, raw[i]!));
        namedByWord = true;
      }
      // A word that is not a path word but is distinctive in the platform's descriptions points at its resources too.
      const meant = weak === undefined && !isNoun(token) ? (index.meaning?.(token) ?? index.meaning?.(raw[i]!)) : undefined;
      const alternatives = [{ term: token, weight: 1 }, ...(meant ?? []).map((term) => ({ term, weight: SPEC_WORD_WEIGHT }))];
      add({ alternatives, weight: weight * (weak ?? 1), source: raw[i]! });
      if (weak === undefined && !isVerb) {
        seenContent = true;
        firstContent ??= i;
        if (!headDone) head = raw[i] !== token ? 'plural' : 'singular';
        anyPlural ||= raw[i] !== token;
      }
      i += 1;
    }
    const joined = compounds(tokens, tokenWeights, knows);
    // "power outlet template": the vocabulary read "power outlet" as `poweroutlet`, and the words
    // together name `poweroutlettemplate`; a reading inside a name the index has may stand for it.
    for (const compound of joined) {
      for (const group of groups) {
        const part = words(group.source).map(singular).join(' ');
        if (part !== compound.source && ` ${compound.source} `.includes(` ${part} `))
          group.alternatives.push({ term: compound.alternatives[0]!.term, weight: 1 });
      }
    }
    groups.push(...joined);
    groups.push(...this.literalGroups(literals, text, firstContent, intent));
    // "Delete stale VLANs": a plural object means many, unless an id points at one.
    const many = intent.many || (head === 'plural' && intent.one !== 'id' && !intent.methods.GET && !intent.methods.POST);
    // "Show the change log of object changes" lists; "get ipsec profile" reads one.
    const one = intent.one === 'implied' && anyPlural ? false : intent.one;
    return {
      groups: dedupe(groups),
      intent: { ...intent, one, many, listing: intent.listing || (head === 'plural' && Boolean(intent.methods.GET)) },
    };
  }
}

/** A literal's own word group: alternatives from its `means`, best first. */
function meansGroup(means: string, weight: number, source: string): QueryGroup {
  return { alternatives: means.split('|').map((term, rank) => ({ term, weight: rank === 0 ? 1 : 0.9 })), weight, source };
}

/** Neighbouring words the index knows joined (`device type` → `devicetype`, `inventory item template`), whatever the vocabulary made of them. */
function compounds(tokens: string[], weights: number[], knows: (term: string) => boolean): QueryGroup[] {
  const found: QueryGroup[] = [];
  for (let i = 0; i < tokens.length; i++) {
    for (const size of [4, 3, 2]) {
      const parts = tokens.slice(i, i + size);
      if (parts.length < size || parts.some((part) => STOP_WORDS.has(part))) continue;
      const compound = parts.join('');
      if (knows(compound))
        found.push({
          alternatives: [{ term: compound, weight: 1 }],
          weight: Math.min(...weights.slice(i, i + size)),
          source: parts.join(' '),
        });
    }
  }
  return found;
}

function dedupe(groups: QueryGroup[]): QueryGroup[] {
  const byKey = new Map<string, QueryGroup>();
  for (const group of groups) {
    const key = group.alternatives
      .map((alt) => `${alt.term}:${alt.weight}`)
      .sort()
      .join(',');
    const existing = byKey.get(key);
    if (!existing || existing.weight < group.weight) byKey.set(key, group);
  }
  return [...byKey.values()];
}
