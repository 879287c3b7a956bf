import type { ElicitedValue } from '../mcp-client/mcp-connector.port.js';
import type { ElicitationRequest } from './chat.jobs.js';

export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/** The user's answer to a server's question, or the lapse of the wait (`answered_by` null, `cancel`). */
export interface ElicitationAnswer {
  action: ElicitationAction;
  content?: Record<string, ElicitedValue>;
  /** The answering user's id; null when no answer came in time (or the turn stopped). */
  answered_by: string | null;
  answered_at: string;
}

/** A question as stored while a tool call waits on it, and its answer once there is one. */
export interface StoredElicitation {
  request: ElicitationRequest;
  /** The step of the call that asked. */
  step: number;
  /** When it counts as cancelled (ms since the epoch). */
  expiresAt: number;
  answer?: ElicitationAnswer;
}

/** `answered`: an answer (or the lapse) is already in; `expired`: the wait ran out before `now`. */
export type AnswerOutcome =
  { outcome: 'recorded' } | { outcome: 'unknown' } | { outcome: 'answered' } | { outcome: 'expired'; expiresAt: number };

/**
 * Port: the questions MCP servers put to a turn's user, by turn id. The first answer counts (the
 * user's, or the lapse the waiting worker records), so an answer is never both taken and lost.
 */
export interface ElicitationStore {
  /** Records a question among the turn's; the turn's questions are kept `ttlMs`. */
  open(turnId: string, question: Omit<StoredElicitation, 'answer'>, ttlMs: number): Promise<void>;
  /** The turn's questions, the first asked first. */
  list(turnId: string): Promise<StoredElicitation[]>;
  get(turnId: string, id: string): Promise<StoredElicitation | null>;
  /** Records the user's answer if none is in and `now` is before the question's expiry. */
  answer(turnId: string, id: string, answer: ElicitationAnswer, now: number): Promise<AnswerOutcome>;
  /** Records `lapsed` unless an answer is in; answers the one that counts (null: no such question). */
  settle(turnId: string, id: string, lapsed: ElicitationAnswer): Promise<ElicitationAnswer | null>;
}
