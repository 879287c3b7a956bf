import type { HttpMethod } from '../platform/platform.port.js';
import { words } from '../kernel/text.js';
import { STOP_WORDS } from './vocabulary.js';

/**
 * What a request asks the API to do, read from its grammar:
 * - the method: the verb that opens an imperative ("decommission the firewall"), the verb after a
 *   modal in a question ("which VLAN should I delete"), a trailing verb in an agent's short form
 *   ("wireless lan create"); a question or a bare noun phrase reads; a verb the lists do not know
 *   gets a soft prior from the rest of the request ("... for the new DMZ" creates, "... as
 *   decommissioning" changes, "... it was never used" deletes);
 * - the shape: one object (an id, a name, "this") → the detail path `{id}`; many ("all", "bulk",
 *   "these", a plural noun with a write) → the collection; reads default to the collection.
 */
export interface Intent {
  /** Preference per method, 1 for the asked one; methods not listed get METHOD_MISS. */
  methods: Partial<Record<HttpMethod, number>>;
  /** The verb that decided it, as typed, if any. */
  verb?: string;
  /** Token position of that verb in the request's words. */
  verbAt?: number;
  /** Token position of a phrasal verb's particle ("free *up* 10.0.0.7", "bring the spare *back*"): part of the verb, not a search word. */
  particleAt?: number;
  /**
   * "Put VLAN 310 on the trunk", "add Maria to the admins group": an existing object linked to
   * another. The token position of the preposition between them; what follows it is the other
   * object, not context.
   */
  linkAt?: number;
  /** An id points at one object, a name names one, `implied`: "get the ipsec profile" (singular, no filter). */
  one: 'id' | 'name' | 'implied' | false;
  /** "all", "bulk", "these", a plural object of a write: many objects at once. */
  many: boolean;
  /** An explicit listing ("list", "all", "how many", "which ..."). */
  listing: boolean;
}

export const METHOD_MISS = 0.4;

type MethodKind = 'POST' | 'GET' | 'CHANGE' | 'REPLACE' | 'DELETE';

const VERBS: Array<[MethodKind, string]> = [
  [
    'POST',
    'add create new register order buy purchase procure lease book hold onboard provision allocate reserve claim insert define enroll build spin stand deploy install introduce ' +
      'instantiate open submit import connect run execute trigger launch kick start sync synchronize synchronise resync refresh send post render generate approve deny schedule ' +
      'enqueue requeue rerun retry clone duplicate copy make bootstrap populate seed upload attach record document hook plug cable grant subscribe ' +
      'notify alert invite stop cancel halt dry allow permit let wire store save stash enrol reject refuse decline',
  ],
  [
    'GET',
    'list show get display find search lookup look view retrieve fetch pull read see check inspect count browse enumerate export download report audit describe print trace monitor verify compare filter follow',
  ],
  [
    'CHANGE',
    'change update modify edit rename bump set move relocate reassign adjust correct fix tweak mark enable disable toggle upgrade downgrade increase decrease amend alter assign unassign ' +
      'flag promote migrate rehome renumber swap shut unshut shutdown detach extend shrink resize repoint rewire retag annotate label tag patch',
  ],
  ['REPLACE', 'replace overwrite redefine'],
  [
    'DELETE',
    'delete remove decommission retire destroy drop purge erase rid tear teardown deprovision clean cleanup unregister deregister wipe eliminate discard dispose scrap kill trash ' +
      'prune clear revoke expire decom unrack uninstall disconnect unplug dismantle release unreserve',
  ],
];

const METHODS_OF: Record<MethodKind, Partial<Record<HttpMethod, number>>> = {
  POST: { POST: 1 },
  GET: { GET: 1 },
  CHANGE: { PATCH: 1, PUT: 0.97 },
  REPLACE: { PUT: 1, PATCH: 0.97 },
  DELETE: { DELETE: 1 },
};

const VERB_METHODS = new Map<string, Partial<Record<HttpMethod, number>>>();
for (const [kind, list] of VERBS) for (const verb of list.split(' ')) if (!VERB_METHODS.has(verb)) VERB_METHODS.set(verb, METHODS_OF[kind]);

/** The method of a verb, through the inflections people type ("added", "listing", "removes"). */
export function verbMethods(word: string): Partial<Record<HttpMethod, number>> | undefined {
  for (const candidate of [
    word,
    word.replace(/ing$/, ''),
    word.replace(/ing$/, 'e'),
    word.replace(/ed$/, ''),
    word.replace(/d$/, ''),
    word.replace(/(.)\1ed$/, '$1'),
    word.replace(/e?s$/, ''),
  ]) {
    const hit = VERB_METHODS.get(candidate);
    if (hit) return hit;
  }
  return undefined;
}

/** Verbs that name an action path by another word ("kick off a script" runs it). */
export const VERB_ACTIONS: Record<string, string> = {
  run: 'run',
  execute: 'run',
  trigger: 'run',
  launch: 'run',
  kick: 'run',
  start: 'run',
  fire: 'run',
  invoke: 'run',
  // Scheduling a job runs it at a later time.
  schedule: 'run',
  sync: 'sync',
  synchronize: 'sync',
  synchronise: 'sync',
  resync: 'sync',
  refresh: 'sync',
  trace: 'trace',
  follow: 'trace',
  render: 'render',
  generate: 'render',
  rerun: 'requeue',
  retry: 'requeue',
  requeue: 'requeue',
  enqueue: 'enqueue',
  stop: 'stop',
  cancel: 'stop',
  halt: 'stop',
  approve: 'approve',
  deny: 'deny',
  reject: 'deny',
};

/** Verbs that make or undo one kind of object whatever it is called: plugging in lays a cable, letting someone edit grants a permission. */
export const VERB_OBJECTS: Record<string, string> = {
  plug: 'cable',
  unplug: 'cable',
  connect: 'cable',
  disconnect: 'cable',
  wire: 'cable',
  rewire: 'cable',
  let: 'permission',
  allow: 'permission',
  permit: 'permission',
};

/** Verbs that are also the names of action paths (`/run/`, `/sync/`, `/trace/`): they stay search words. */
export const ACTION_VERBS = new Set(
  'run sync trace render approve deny enqueue requeue stop provision elevation schedule connect check'.split(' '),
);

const WH_WORDS = new Set('what which where who whom whose when why how'.split(' '));
const AUXILIARIES = new Set('is are was were am do does did has have had can could should would will shall may might must'.split(' '));
/** Words that open a request without being its verb ("please", "can you", "I need to"). */
const PREAMBLE =
  /^(?:(?:please|pls|kindly|ok|okay|hey|hi|so|now|then|also|and|just|quickly)\s+)*(?:(?:can|could|would|will) you (?:please )?|(?:i|we) (?:want|need|have|would like|'d like|wanna) to |(?:i|we)'d like to |i'd like to |(?:need|want|have) to |let's |lets |let me |help me |go ahead and |time to |how (?:do|can|should) (?:i|we) |how to )/;
const MODAL_ACTION =
  /\b(?:should|must|shall|need to|have to|has to|ought to|want to|going to)\s+(?:i\s+|we\s+|you\s+|they\s+)?(?:be\s+)?([a-z]+)/;
const MODAL_ABILITY = /\b(?:can|could|may|do|does|did)\s+(?:i|we|you|they)\s+([a-z]+)/;
/** Writes people mean when the verb alone does not say: "the new switch needs to be added", "get rid of". */
const IDIOMS: Array<[RegExp, MethodKind]> = [
  [/\bget rid of\b|\btake (?:\w+ )?out of (?:service|the inventory|production)\b|\bno longer (?:needed|used|exists?)\b/, 'DELETE'],
  [/^\W*(?:note|write|jot) down\b|^\W*(?:make|take) a note\b/, 'POST'],
  [
    /\b(?:set|stand|spin|bring|hook|wire|light|turn) up\b|\bput (?:\w+ )*?in(?:to)? (?:the )?(?:inventory|service|production|nautobot|netbox)\b/,
    'POST',
  ],
  [/\b(?:turn|switch|shut|power) (?:off|on|down)\b/, 'CHANGE'],
  // "Patch a fibre between ..." lays a cable; "patch the device" changes it.
  [/^\W*patch(?:ed)? (?:(?:a|an|the|new) )?(?:cable|fiber|fibre|cord|jumper|copper|cross.?connect)/, 'POST'],
  // "Pull the templates from our git source", "... was fixed in git, pull it in again" sync it; "pull the interface list" reads.
  [
    /^(?=.*\b(?:git|github|gitlab|repo|repository|upstream|source)\b)(?:\W*|.*(?:[,;.]|\b(?:and|then|so|now|please))\s*)(?:re-?)?pull\b/,
    'POST',
  ],
];
/**
 * Verbs whose particle changes what they do, with the particle right after the verb or after its
 * object: "free up 10.0.0.7" releases the address, "bring the spare back into stock" changes it.
 */
const PHRASAL: Array<[verb: string, particle: string, kind: MethodKind]> = [
  ['free', 'up', 'DELETE'],
  ['clear', 'out', 'DELETE'],
  ['give', 'up', 'DELETE'],
  ['give', 'back', 'DELETE'],
  ['hand', 'back', 'DELETE'],
  ['bring', 'back', 'CHANGE'],
  ['put', 'back', 'CHANGE'],
  ['send', 'back', 'CHANGE'],
  ['hand', 'over', 'CHANGE'],
  ['turn', 'over', 'CHANGE'],
  ['lock', 'out', 'CHANGE'],
  ['break', 'up', 'DELETE'],
];
/** How far after its verb a particle may stand ("bring the spare route processor back"). */
const PARTICLE_REACH = 5;
/** Verbs that link an object to another ("put X on Y", "assign X to Y", "add X to Y"). */
const LINK_VERBS = new Set('add put assign attach map bind move extend place join associate link tie hang pin'.split(' '));
const LINK_PREPOSITIONS = new Set('to on onto into in under with'.split(' '));
/** Words that make the object a new one ("add a VLAN to ..." creates it). */
const NEW_OBJECT = new Set('a an new another second additional extra more some'.split(' '));
/** Words that point at an object that already exists ("put the VLAN on ..."). */
const KNOWN_OBJECT = new Set('the this that these those our my its their existing'.split(' '));
/** A link changes one of the two objects; a link object of its own is created (NetBox's assignments and terminations). */
const LINK_METHODS: Partial<Record<HttpMethod, number>> = { PATCH: 1, PUT: 0.97, POST: 0.9 };

/** For a verb the lists do not know: what the rest of the request suggests. */
const PRIORS: Array<[RegExp, MethodKind]> = [
  [/\b(?:old|stale|unused|obsolete|dead|orphaned|never used|leftover|no longer)\b/, 'DELETE'],
  [/\b(?:new|another|second|additional|extra|more)\b/, 'POST'],
  [/\b(?:to|as|from \S+ to)\s+\S+/, 'CHANGE'],
];
const UNKNOWN_VERB: Partial<Record<HttpMethod, number>> = { GET: 0.8, POST: 0.75, PATCH: 0.75, PUT: 0.7, DELETE: 0.6 };

const LISTING = /\b(?:list|lists|listing|all|every|each|how many|count|enumerate|browse|inventory of|overview|which|what are)\b/;
const MANY = /\b(?:all|every|bulk|batch|multiple|several|many|en masse|mass|at once|in one go|set of|group of|list of|these|those)\b/;
const BY_ID =
  /\b(?:by (?:its |their |the )?(?:id|uuid|pk|primary key)|with (?:the )?(?:id|uuid)|id \S+|uuid|(?:this|that|a given|a specific|one specific|a particular|the specific|single) \w+)\b/;
const QUOTED = /"[^"]+"|'[^']+'|\b(?:called|named|titled|labelled|labeled) \S+/;
const RETRIEVE = new Set('get retrieve fetch read show view describe inspect'.split(' '));

export interface IntentContext {
  /** Words of the request with its literals blanked out (see literals.ts). */
  words: string[];
  /** The request names one object by a literal (an address, a host or interface name). */
  namesObject: boolean;
  /** Word positions a literal stands right before (`bookmark core-rtr-1`: 1). */
  literalBefore: Set<number>;
  /** An id literal (a UUID). */
  hasId: boolean;
  /** True for words the description uses as resource nouns (`bookmark`, `tag`): a noun first is still a verb when an object follows. */
  isNoun: (word: string) => boolean;
  /** True for words the vocabulary reads as things (`stack`, `cabinet`): one that opens a request before its object is used as a verb that makes one. */
  isThing?: (word: string) => boolean;
  /** True when a resource has a many-valued field of another (`user`, `group`: a user's `groups`). */
  holdsMany?: (resource: string, held: string) => boolean;
}

const DETERMINERS = new Set(
  'a an the this that these those all every each my our your their some any another one two three several'.split(' '),
);

interface VerbReading {
  methods: Partial<Record<HttpMethod, number>>;
  verb?: string;
  at?: number;
  particleAt?: number;
  linkAt?: number;
}

/** A phrasal verb opening the request, with its particle's position. */
function phrasalVerb(words: string[], at: number): VerbReading | undefined {
  const verb = words[at];
  for (const [base, particle, kind] of PHRASAL) {
    if (verb === undefined || ![base, `${base}s`, `${base}d`, `${base}ed`, `${base}ing`, `${base.replace(/e$/, '')}ing`].includes(verb))
      continue;
    const reach = words.slice(at + 1, at + 1 + PARTICLE_REACH);
    const offset = reach.indexOf(particle);
    if (offset >= 0) return { methods: METHODS_OF[kind], verb, at, particleAt: at + 1 + offset };
  }
  return undefined;
}

/**
 * "Put VLAN 310 on the trunk", "add Maria to the network-admins group": a linking verb whose
 * object already exists (named by a literal or a capitalised name, or "the ...") and a preposition
 * before the other object. The object of "add a VLAN to ..." is new: that creates it.
 */
function linkVerb(query: string, words: string[], at: number, context: IntentContext): VerbReading | undefined {
  const verb = words[at];
  if (verb === undefined || !LINK_VERBS.has(verb)) return undefined;
  const preposition = words.findIndex((word, index) => index > at && index <= at + PARTICLE_REACH && LINK_PREPOSITIONS.has(word));
  if (preposition < 0) return undefined;
  // The object may be a literal alone ("move app-vm-9 to ..."), which is not among the words.
  const object = words.slice(at + 1, preposition);
  if (object.some((word) => NEW_OBJECT.has(word))) return undefined;
  // Capitalised after the first word: a name ("Maria", "EVPN").
  const names = new Set(
    [...query.matchAll(/\b[A-Z][A-Za-z0-9]*/g)]
      .filter((match) => /\w/.test(query.slice(0, match.index)))
      .map((match) => match[0].toLowerCase()),
  );
  const capitalised = object.some((word) => names.has(word));
  const literal = [...context.literalBefore].some((position) => position > at && position <= preposition);
  // "add user to group", "add tag to device": the object is one of many the other holds (a user's
  // `groups`, a device's `tags`); "add vlan to vlan group" puts a new VLAN in the one group it has.
  const target = words.slice(preposition + 1).find((word) => !DETERMINERS.has(word));
  const member =
    object.length > 0 &&
    target !== undefined &&
    (context.holdsMany?.(object.at(-1)!, target) || context.holdsMany?.(target, object.at(-1)!));
  if (!literal && !capitalised && !member && !(object[0] !== undefined && KNOWN_OBJECT.has(object[0]))) return undefined;
  return { methods: LINK_METHODS, verb, at, linkAt: preposition };
}

/** The method from the grammar: idioms, questions and their modals, the opening verb, a noun used as a verb, a later verb of an agent's short form, a soft prior. */
function readVerb(query: string, words: string[], context: IntentContext): VerbReading {
  const lower = query.toLowerCase();
  for (const [pattern, kind] of IDIOMS) if (pattern.test(lower)) return { methods: METHODS_OF[kind], verb: pattern.exec(lower)![0] };
  // "Why was the job refused? Reject it": a later sentence's imperative is what is asked.
  const sentence = laterImperative(lower, context);
  if (sentence) return sentence;
  const preamble = PREAMBLE.exec(lower);
  const skipped = preamble ? preamble[0].trim().split(/\s+/).length : 0;
  const first = words[skipped];
  const question = !preamble && first !== undefined && (WH_WORDS.has(first) || AUXILIARIES.has(first));
  if (question || (!preamble && lower.trim().endsWith('?'))) {
    if (/\bhow (?:many|much)\b/.test(lower)) return { methods: { GET: 1 }, verb: 'how many' };
    const action = MODAL_ACTION.exec(lower);
    const actionMethods = action ? verbMethods(action[1]!) : undefined;
    if (action && actionMethods)
      return { methods: { ...actionMethods, GET: Math.max(actionMethods.GET ?? 0, 0.5) }, verb: action[1], at: words.indexOf(action[1]!) };
    const ability = MODAL_ABILITY.exec(lower);
    const abilityMethods = ability ? verbMethods(ability[1]!) : undefined;
    // "Which scripts can I run": asks what exists, and perhaps to act on it.
    if (ability && abilityMethods && !abilityMethods.GET)
      return {
        methods: { GET: 1, ...Object.fromEntries(Object.entries(abilityMethods).map(([method, weight]) => [method, weight * 0.9])) },
        verb: ability[1],
        at: words.indexOf(ability[1]!),
      };
    return { methods: { GET: 1 }, verb: first };
  }
  if (first === undefined) return { methods: { GET: 1 } };
  const special = phrasalVerb(words, skipped) ?? linkVerb(query, words, skipped, context);
  if (special) return special;
  // "Give web-07 a second NIC" creates; "give app-db-01 16 vCPUs" sets its attributes; "give me the list" reads.
  if (first === 'give' || first === 'grant' || first === 'hand') {
    const next = words[skipped + 1];
    if (next === 'me' || next === 'us') return { methods: { GET: 1, POST: 0.9 }, verb: first, at: skipped };
    const quantity = context.literalBefore.has(skipped + 1) && /^\d/.test(next ?? '');
    return quantity
      ? { methods: { ...METHODS_OF.CHANGE, POST: 0.9 }, verb: first, at: skipped }
      : { methods: { POST: 1 }, verb: first, at: skipped };
  }
  const opening = verbMethods(first);
  const next = words[skipped + 1];
  const objectFollows = (next !== undefined && DETERMINERS.has(next)) || context.literalBefore.has(skipped + 1);
  if (opening && !(context.isNoun(first) && !objectFollows && words.length > skipped + 1))
    return { methods: opening, verb: first, at: skipped };
  // A noun used as a verb makes one of itself: "bookmark core-rtr-1", "group our Irish sites".
  if (!opening && objectFollows && (context.isNoun(first) || context.isThing?.(first)))
    return { methods: { POST: 1, PATCH: 0.8, PUT: 0.75 }, verb: first, at: skipped };
  // An agent's short form puts the verb later ("bulk delete ip addresses", "ipsec profile get"): the
  // first verb of the opening run of words, before any function word ("... so I find it" is another clause).
  for (let index = skipped + 1; index < words.length && !STOP_WORDS.has(words[index]!); index++) {
    const methods = verbMethods(words[index]!);
    if (methods && !context.isNoun(words[index]!)) return { methods, verb: words[index], at: index };
  }
  // "Our Zurich site is now called ZRH-1, update it": an imperative opening a later clause.
  const clause = clauseVerb(lower, context);
  if (clause) return clause;
  // A word that opens an imperative and is not a noun the API uses is a verb nobody listed.
  const unknownVerb = objectFollows && !context.isNoun(first);
  if (!unknownVerb) return { methods: { GET: 1 } };
  for (const [pattern, kind] of PRIORS)
    if (pattern.test(lower)) return { methods: { ...UNKNOWN_VERB, ...METHODS_OF[kind] }, verb: first, at: skipped };
  return { methods: UNKNOWN_VERB, verb: first, at: skipped };
}

/** The verb opening a later sentence, when one does. */
function laterImperative(lower: string, context: IntentContext): VerbReading | undefined {
  return openingVerb(lower.split(/[.?!]\s+(?=\w)/), context);
}

/** The verb opening a later clause (after a comma, semicolon, colon or dash), when one does. */
function clauseVerb(lower: string, context: IntentContext): VerbReading | undefined {
  return openingVerb(lower.split(/[,;:]|\s[-–]\s/), context);
}

/** The first verb that opens one of the pieces after the first, with its position in the request's words. */
function openingVerb(clauses: string[], context: IntentContext): VerbReading | undefined {
  let before = words(clauses[0] ?? '').length;
  for (const clause of clauses.slice(1)) {
    const clauseWords = words(clause);
    const skipped = clauseWords[0] === 'please' || clauseWords[0] === 'so' || clauseWords[0] === 'then' || clauseWords[0] === 'and' ? 1 : 0;
    const verb = clauseWords[skipped];
    const methods = verb === undefined ? undefined : verbMethods(verb);
    if (verb && methods && !context.isNoun(verb)) return { methods, verb, at: before + skipped };
    before += clauseWords.length;
  }
  return undefined;
}

export function detectIntent(query: string, context: IntentContext): Intent {
  const lower = query.toLowerCase();
  const { words } = context;
  const reading = readVerb(query, words, context);
  // "Flag 10.0.5.0/24 as a pool so every address in it is usable": a later clause's "every" is not the request's object.
  const mainClause = lower.split(/\b(?:so|because|since|which|where|while)\b/)[0]!;
  const many = MANY.test(mainClause) && !/\bone of\b/.test(lower);
  const retrieve = reading.verb !== undefined && RETRIEVE.has(reading.verb) && !LISTING.test(lower);
  const one: Intent['one'] =
    context.hasId || BY_ID.test(lower) ? 'id' : context.namesObject || QUOTED.test(query) ? 'name' : retrieve ? 'implied' : false;
  const listing = Boolean(reading.methods.GET === 1) && (LISTING.test(lower) || many);
  return {
    methods: reading.methods,
    ...(reading.verb ? { verb: reading.verb } : {}),
    ...(reading.at !== undefined ? { verbAt: reading.at } : {}),
    ...(reading.particleAt !== undefined ? { particleAt: reading.particleAt } : {}),
    ...(reading.linkAt !== undefined ? { linkAt: reading.linkAt } : {}),
    one,
    many,
    listing,
  };
}
