import type { Schemas } from '../api/openapi-types.js';
import type { TurnMessage } from './agent/turn-types.js';

/** A message as kept in a session: which turn it belongs to and when it was written (a decided call's result carries the decision). */
export type StoredMessage = TurnMessage & { turn_id: string; created: string };

/** What a stored turn answered; a retried job finds it and answers the same without calling the provider again. */
export interface StoredTurn {
  turn_id: string;
  response: string;
  model: string;
  created: string;
}

/** A session as the API lists it. */
export type SessionSummary = Schemas['ChatSessionSummary'];

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
 * Port for per-user chat sessions. Every operation is scoped to one user: another
 * user's session is simply not there. Appending is atomic and keyed by turn id, so a retried
 * turn is stored once.
 */
export interface SessionStore {
  generation(userId: string, sessionId: string): Promise<number>;
  /** The session's messages, and the turn if it was already stored. */
  load(userId: string, sessionId: string, turnId: string): Promise<{ history: StoredMessage[]; stored: StoredTurn | null }>;
  append(userId: string, sessionId: string, turn: TurnToStore): Promise<AppendOutcome>;
  list(userId: string, offset: number, limit: number): Promise<{ count: number; results: SessionSummary[] }>;
  get(userId: string, sessionId: string): Promise<SessionDetail | null>;
  /** Sets the session's title; null when there is no such session. */
  rename(userId: string, sessionId: string, title: string): Promise<SessionSummary | null>;
  /** Deletes the session and makes turns asked before now unstorable. False when there was nothing. */
  clear(userId: string, sessionId: string): Promise<boolean>;
  /** Deletes sessions idle for longer than the TTL and index entries whose data has expired. */
  removeExpired(): Promise<{ sessions: number }>;
}
