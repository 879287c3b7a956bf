import type { ChatMessage } from '../providers/provider.js';

/** Session ids are chosen by clients or generated; they end up in Redis keys and job ids, so no `:`. */
export const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A message as kept in a session: which turn it belongs to and when it was written. */
export type StoredMessage = ChatMessage & { turn_id: string; created: string };

/** What a stored turn answered; a retried job finds it and answers the same without calling the provider again. */
export interface StoredTurn {
  turn_id: string;
  response: string;
  model: string;
  created: string;
}

export interface SessionSummary {
  id: string;
  title: string;
  model: string;
  turns: number;
  created: string;
  updated: string;
}

export interface SessionDetail extends SessionSummary {
  messages: StoredMessage[];
}

export interface TurnToStore {
  turnId: string;
  /** The session's generation when the turn was asked; a clear since then means the turn is not stored. */
  generation: number;
  model: string;
  /** Used as the session title when this is its first turn. */
  title: string;
  response: string;
  messages: StoredMessage[];
}

/** `cleared`: the session was cleared after the turn was asked, so it is not written back. */
export type AppendOutcome = 'stored' | 'duplicate' | 'cleared';

/**
 * Port for per-user conversation checkpoints. Every operation is scoped to one user: another
 * user's session is simply not there. Appending is atomic and keyed by turn id, so a retried
 * turn is stored once.
 */
export interface ConversationStore {
  generation(userId: string, sessionId: string): Promise<number>;
  /** The session's messages, and the turn if it was already stored. */
  load(userId: string, sessionId: string, turnId: string): Promise<{ history: StoredMessage[]; stored: StoredTurn | null }>;
  append(userId: string, sessionId: string, turn: TurnToStore): Promise<AppendOutcome>;
  list(userId: string, offset: number, limit: number): Promise<{ count: number; results: SessionSummary[] }>;
  get(userId: string, sessionId: string): Promise<SessionDetail | null>;
  /** Deletes the session and makes turns asked before now unstorable. False when there was nothing. */
  clear(userId: string, sessionId: string): Promise<boolean>;
  /** Deletes sessions idle for longer than the TTL and index entries whose data has expired. */
  removeExpired(): Promise<{ sessions: number }>;
}

/**
 * The most recent whole turns that fit in `budgetChars` (content and tool arguments counted),
 * oldest first, without the bookkeeping fields. A turn is never cut in half: a tool result
 * without the call that asked for it confuses every provider.
 */
export function historyWithinBudget(history: StoredMessage[], budgetChars: number): ChatMessage[] {
  const turns: StoredMessage[][] = [];
  for (const message of history) {
    const last = turns.at(-1);
    if (last && last[0]?.turn_id === message.turn_id) last.push(message);
    else turns.push([message]);
  }
  const kept: StoredMessage[][] = [];
  let used = 0;
  for (let index = turns.length - 1; index >= 0; index--) {
    const turn = turns[index] as StoredMessage[];
    const size = turn.reduce((sum, message) => sum + sizeOf(message), 0);
    if (used + size > budgetChars) break;
    used += size;
    kept.unshift(turn);
  }
  return kept.flat().map(({ turn_id: _turn, created: _created, ...message }) => message as ChatMessage);
}

function sizeOf(message: StoredMessage): number {
  const calls = message.role === 'assistant' && message.tool_calls ? JSON.stringify(message.tool_calls).length : 0;
  return message.content.length + calls;
}
