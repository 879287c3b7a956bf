import type { EarlierAttempt, PausedAgent, ToolCallOutcome } from './agent/turn-types.js';
import type { ApprovalDecision } from './chat-tools.port.js';

/** A paused turn's round of proposed calls: where the agent stopped and the decisions so far. */
export interface ApprovalRound {
  paused: PausedAgent;
  /** When undecided calls count as declined (ms since the epoch). */
  expiresAt: number;
  /** By call id. */
  decisions: Record<string, ApprovalDecision>;
  /** The turn went on: no more decisions. */
  closed: boolean;
}

/** `recorded`, `complete`: every proposed call is decided now, so the turn may go on. */
export type DecideOutcome =
  | { outcome: 'recorded'; complete: boolean }
  | { outcome: 'not_waiting' }
  /** The round's wait ran out before `now`: its undecided calls count as declined, settled or not. */
  | { outcome: 'expired'; expiresAt: number }
  | { outcome: 'unknown'; ids: string[] };

export type SettleOutcome =
  | { state: 'none' }
  /** Some calls are undecided and the wait has not run out. */
  | { state: 'waiting'; expiresAt: number }
  | { state: 'settled'; round: ApprovalRound };

/**
 * Port: the approval rounds of paused chat turns, by turn id. Deciding and settling are atomic,
 * so a decision either counts for the turn or is refused as too late, never lost in between.
 */
export interface ApprovalStore {
  /** Starts the turn's round (replacing an earlier, closed one) among `userId`'s; kept `ttlMs`. */
  open(turnId: string, round: Pick<ApprovalRound, 'paused' | 'expiresAt'>, ttlMs: number, userId: string): Promise<void>;
  get(turnId: string): Promise<ApprovalRound | null>;
  /** The turns of `userId` whose round still waits for decisions at `now` (open and not expired), the latest to expire (the last opened) first. */
  waiting(userId: string, now: number): Promise<string[]>;
  /**
   * Records decisions on an open round's proposed calls (all or nothing), if `now` is before its
   * expiry: the wait holds whether or not a worker is there to settle the round when it runs out.
   */
  decide(turnId: string, decisions: Record<string, ApprovalDecision>, now: number): Promise<DecideOutcome>;
  /**
   * Closes the round once every call is decided or `now` is past its expiry (undecided calls then
   * get `lapsed`); a closed round is answered again, for a retried turn.
   */
  settle(turnId: string, now: number, lapsed: ApprovalDecision): Promise<SettleOutcome>;
  /** Closes the turn's round as it stands, its undecided calls undecided (the turn was stopped): decisions are refused from now on. */
  close(turnId: string): Promise<void>;
  /**
   * Marks an approved call of the turn's round started, once, and answers what an earlier attempt
   * left of it. Without a round (expired), nothing.
   */
  startCall(turnId: string, callId: string): Promise<EarlierAttempt>;
  /** Records an approved call's outcome in the turn's round, for a retried turn to reuse. */
  finishCall(turnId: string, callId: string, outcome: ToolCallOutcome): Promise<void>;
}
