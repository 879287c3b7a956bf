import type { ApprovalRound, ApprovalStore, DecideOutcome, SettleOutcome } from '../../../src/chat/approval-store.port.js';
import type { ApprovalDecision } from '../../../src/chat/chat-tools.port.js';
import type { EarlierAttempt, ToolCallOutcome } from '../../../src/chat/agent/turn-types.js';

/**
 * The approval store in memory, with the Redis adapter's rules: all-or-nothing decisions refused
 * after the expiry, a closed round answered again, decisions keyed by call id as own properties (`__proto__` is an id like another).
 */
export class MemoryApprovalStore implements ApprovalStore {
  readonly rounds = new Map<string, ApprovalRound>();
  /** Approved calls by turn id, then call id: `started`, or the outcome. Opening a round drops the turn's. */
  readonly calls = new Map<string, Map<string, 'started' | ToolCallOutcome>>();

  /** Each turn's owner. */
  readonly owners = new Map<string, string>();

  async open(
    turnId: string,
    { paused, expiresAt }: Pick<ApprovalRound, 'paused' | 'expiresAt'>,
    _ttlMs: number,
    userId: string,
  ): Promise<void> {
    this.rounds.set(turnId, structuredClone({ paused, expiresAt, decisions: {}, closed: false }));
    this.calls.set(turnId, new Map());
    this.owners.set(turnId, userId);
  }

  async waiting(userId: string, now: number): Promise<string[]> {
    const open = [...this.owners].flatMap(([turnId, owner]) => {
      const round = this.rounds.get(turnId);
      return owner === userId && round && !round.closed && round.expiresAt >= now ? [{ turnId, expiresAt: round.expiresAt }] : [];
    });
    return open.sort((a, b) => b.expiresAt - a.expiresAt).map(({ turnId }) => turnId);
  }

  async get(turnId: string): Promise<ApprovalRound | null> {
    const round = this.rounds.get(turnId);
    return round ? structuredClone(round) : null;
  }

  async decide(turnId: string, decisions: Record<string, ApprovalDecision>, now: number): Promise<DecideOutcome> {
    const round = this.rounds.get(turnId);
    if (!round || round.closed) return { outcome: 'not_waiting' };
    if (now >= round.expiresAt) return { outcome: 'expired', expiresAt: round.expiresAt };
    const known = new Set(round.paused.pending.map((call) => call.id));
    const unknown = Object.keys(decisions).filter((id) => !known.has(id));
    if (unknown.length > 0) return { outcome: 'unknown', ids: unknown };
    round.decisions = { ...round.decisions, ...structuredClone(decisions) };
    return { outcome: 'recorded', complete: [...known].every((id) => Object.hasOwn(round.decisions, id)) };
  }

  async close(turnId: string): Promise<void> {
    const round = this.rounds.get(turnId);
    if (round) round.closed = true;
  }

  async settle(turnId: string, now: number, lapsed: ApprovalDecision): Promise<SettleOutcome> {
    const round = this.rounds.get(turnId);
    if (!round) return { state: 'none' };
    if (!round.closed) {
      const undecided = round.paused.pending.filter((call) => !Object.hasOwn(round.decisions, call.id));
      if (undecided.length > 0 && now < round.expiresAt) return { state: 'waiting', expiresAt: round.expiresAt };
      round.decisions = { ...round.decisions, ...Object.fromEntries(undecided.map((call) => [call.id, lapsed])) };
      round.closed = true;
    }
    return { state: 'settled', round: structuredClone(round) };
  }

  async startCall(turnId: string, callId: string): Promise<EarlierAttempt> {
    const calls = this.calls.get(turnId);
    if (!calls) return null;
    const earlier = calls.get(callId);
    if (earlier) return structuredClone(earlier);
    calls.set(callId, 'started');
    return null;
  }

  async finishCall(turnId: string, callId: string, outcome: ToolCallOutcome): Promise<void> {
    this.calls.get(turnId)?.set(callId, structuredClone(outcome));
  }
}
