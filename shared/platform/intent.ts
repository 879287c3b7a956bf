import type { HttpMethod } from './platform-client.js';

/**
 * What a request asks the API to do, read from its verbs and wording:
 * - the method: add, onboard → POST; change, rename, bump → PATCH (PUT close behind);
 *   decommission, remove → DELETE; show, which, list → GET (also the default);
 * - the shape: one object (by id, by name, "this", "a given") → the detail path `{id}`; many
 *   ("all", "bulk", a plural noun) → the collection; reads default to the collection and
 *   single-object writes to the detail path.
 */
export interface Intent {
  /** Preference per method, 1 for the asked one; methods not listed get METHOD_MISS. */
  methods: Partial<Record<HttpMethod, number>>;
  /** The verb that decided it, if any. */
  verb?: string;
  /** An id or a name points at one object. */
  one: 'id' | 'name' | false;
  /** "all", "bulk", a plural object: many objects at once. */
  many: boolean;
  /** An explicit listing ("list", "all", "how many", a plural noun with a read). */
  listing: boolean;
}

export const METHOD_MISS = 0.4;

const VERBS: Array<[HttpMethod | 'PATCH_OR_PUT' | 'PUT_OR_PATCH', string]> = [
  ['POST', 'add create new register order buy purchase procure lease book hold onboard provision allocate reserve claim insert define enroll build spin stand deploy install introduce instantiate open submit import connect run execute trigger launch kick start sync synchronize synchronise resync send post render generate approve deny schedule enqueue requeue clone duplicate copy make bootstrap populate seed'],
  ['GET', 'list show get display find search lookup look view retrieve fetch read see check inspect count browse enumerate export download report audit describe print trace monitor verify compare filter lists shows gets finds'],
  ['PATCH_OR_PUT', 'change update modify edit rename bump set move relocate reassign adjust correct fix tweak mark enable disable toggle upgrade downgrade increase decrease patch amend alter assign unassign flag promote migrate rehome renumber swap shut unshut attach detach extend shrink resize repoint rewire retag annotate'],
  ['PUT_OR_PATCH', 'replace overwrite redefine'],
  ['DELETE', 'delete remove decommission retire destroy drop purge erase rid tear teardown deprovision clean cleanup unregister deregister wipe eliminate discard dispose scrap kill trash prune clear revoke expire decom unrack uninstall disconnect'],
];

const VERB_METHODS = new Map<string, Partial<Record<HttpMethod, number>>>();
for (const [kind, list] of VERBS) {
  const methods: Partial<Record<HttpMethod, number>> =
    kind === 'PATCH_OR_PUT' ? { PATCH: 1, PUT: 0.97 } : kind === 'PUT_OR_PATCH' ? { PUT: 1, PATCH: 0.97 } : { [kind]: 1 };
  for (const verb of list.split(' ')) if (!VERB_METHODS.has(verb)) VERB_METHODS.set(verb, methods);
}
/** Inflections people type ("added", "listing", "removes"). */
function verbMethods(word: string, first: boolean): Partial<Record<HttpMethod, number>> | undefined {
  // A past participle later in a sentence describes a state ("connected devices"), not an action.
  const past = first && word.endsWith('ed') ? [word.replace(/ed$/, ''), word.replace(/d$/, '')] : [];
  for (const candidate of [word, word.replace(/ing$/, ''), word.replace(/ing$/, 'e'), ...past, word.replace(/e?s$/, '')]) {
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
  sync: 'sync',
  synchronize: 'sync',
  synchronise: 'sync',
  resync: 'sync',
  trace: 'trace',
  follow: 'trace',
  render: 'render',
  generate: 'render',
};

/** Verbs that are also the names of action paths (`/run/`, `/sync/`, `/trace/`): they stay search words. */
export const ACTION_VERBS = new Set('run sync trace render approve deny enqueue requeue provision elevation schedule connect check'.split(' '));

/** Questions read unless another verb says otherwise ("which VLAN should I delete" deletes). */
const QUESTION_WORDS = new Set('what which where who whom whose tell give'.split(' '));

const LISTING = /\b(list|lists|listing|all|every|each|how many|count|enumerate|browse|inventory of|overview)\b/;
const MANY = /\b(all|every|bulk|batch|multiple|several|many|en masse|mass|at once|in one go|set of|group of|list of)\b/;
const BY_ID = /\b(by (its |their |the )?(id|uuid|pk|primary key)|with (the )?(id|uuid)|id \S+|uuid|(this|that|a given|a specific|one specific|a particular|the specific|single) \w+)\b/;
const NAMED = /("[^"]+"|'[^']+'|\b(called|named|titled|labelled|labeled|hostname) \S+|\b[a-z]+[-_]?[a-z]*\d+[-\w.]*\b|\b\d{1,3}(\.\d{1,3}){3}\b)/;

export function detectIntent(query: string): Intent {
  const lower = query.toLowerCase();
  const words = lower.split(/[^a-z0-9]+/).filter(Boolean);
  let methods: Partial<Record<HttpMethod, number>> | undefined;
  let verb: string | undefined;
  // A question reads ("which ISPs do we buy from"), unless it asks what to do ("which VLAN should I delete").
  const asked = QUESTION_WORDS.has(words[0] ?? '') ? /\b(should|can|could|must|to|shall) (i |we |you )?(\w+)/.exec(lower)?.[3] : undefined;
  const scan = QUESTION_WORDS.has(words[0] ?? '') ? (asked ? [asked] : []) : words;
  for (const [index, word] of scan.entries()) {
    const found = verbMethods(word, index === 0);
    if (found) {
      methods = found;
      verb = word;
      break;
    }
  }
  // Ambiguous verbs: "assign a new IP" creates one, "assign the IP to ..." changes it;
  // "patch a fibre" lays a cable, "patch the device" changes it.
  if (verb === 'assign' || verb === 'assigns') methods = /\bassigns? (a|an|new|another)\b/.test(lower) ? { POST: 1 } : { PATCH: 1, PUT: 0.97 };
  if (/^patch/.test(verb ?? '') && /\b(cable|cables|fiber|fibre|cord|jumper|copper|cross.?connect)\b/.test(lower)) methods = { POST: 1 };
  if (!methods && words.some((word) => QUESTION_WORDS.has(word))) {
    methods = { GET: 1 };
    verb = words.find((word) => QUESTION_WORDS.has(word));
  }
  if (/\bhow many\b|\bis there\b|\bare there\b/.test(lower)) {
    methods = { GET: 1 };
    verb = 'how many';
  }
  if (/\bget rid of\b|\btake (\w+ )?out of service\b/.test(lower)) {
    methods = { DELETE: 1 };
    verb = 'get rid of';
  }
  if (/\b(set|stand|spin|bring) up\b/.test(lower) && verb && ['set', 'stand', 'spin', 'bring'].includes(verb)) methods = { POST: 1 };
  const many = MANY.test(lower) && !/\bone of\b/.test(lower);
  const one: Intent['one'] = BY_ID.test(lower) ? 'id' : NAMED.test(query) ? 'name' : false;
  const resolved = methods ?? { GET: 1 };
  const listing = Boolean(resolved.GET) && (LISTING.test(lower) || many);
  return { methods: resolved, verb, one, many, listing };
}
