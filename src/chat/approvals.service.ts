import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { chatTurnJobId } from './chat.jobs.js';
import type { ApprovalStore } from './approval-store.port.js';
import type { ApprovalDecision } from './chat-tools.port.js';
import { ownedTurn, turnView, type ChatJobView, type ChatTurnQueue } from './turn-jobs.js';

/** The owner's decision on one proposed call of a paused turn. */
export interface ChatDecision {
  id: string;
  approve: boolean;
  note?: string;
}

export interface ApprovalsDependencies {
  queue: Pick<ChatTurnQueue, 'get' | 'resume'>;
  /** The approval rounds of paused turns. */
  approvals: Pick<ApprovalStore, 'get' | 'decide' | 'waiting'>;
  now?: () => number;
}

/**
 * The owner's decisions on the calls a paused turn proposes: which turns wait for them, and
 * recording them, after which the turn goes on. Another user's turn is not found.
 */
export class ApprovalsService {
  constructor(private readonly deps: ApprovalsDependencies) {}

  /** The caller's turns that wait for their decisions (of `sessionId` only, when given), the latest first. */
  async awaitingApproval(userId: string, sessionId?: string): Promise<ChatJobView[]> {
    const turnIds = await this.deps.approvals.waiting(userId, this.now());
    const jobs = await Promise.all(
      turnIds.map((turnId) =>
        turnView(this.deps, userId, chatTurnJobId(turnId)).catch((error: unknown) => {
          // Stopped (dropped) while its round was still listed.
          if (error instanceof NotFoundError) return null;
          throw error;
        }),
      ),
    );
    return jobs.filter(
      (job): job is ChatJobView => job?.status === 'awaiting_approval' && (sessionId === undefined || job.session_id === sessionId),
    );
  }

  /**
   * Records the owner's decisions on a paused turn's proposed calls; once every call is decided
   * the turn goes on. A turn not waiting is a conflict, and so is one whose wait ran out, even
   * before a worker has taken it up again.
   */
  async decide(
    userId: string,
    jobId: string,
    decisions: ChatDecision[],
  ): Promise<{ job_id: string; status: 'awaiting_approval' | 'queued' }> {
    const job = await ownedTurn(this.deps.queue, userId, jobId);
    const ids = decisions.map((decision) => decision.id);
    const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
    if (repeated !== undefined) throw ValidationError.field('decisions', `The call '${repeated}' is decided twice.`);
    const decidedAt = new Date(this.now()).toISOString();
    // fromEntries defines own properties, so any call id is a key like another (`__proto__` too).
    const byId: Record<string, ApprovalDecision> = Object.fromEntries(
      decisions.map(({ id, approve, note }) => [
        id,
        { approved: approve, ...(note?.trim() ? { note: note.trim() } : {}), decided_by: userId, decided_at: decidedAt },
      ]),
    );
    const recorded = await this.deps.approvals.decide(job.data.turnId, byId, this.now());
    if (recorded.outcome === 'not_waiting') throw new ConflictError(`The turn is not waiting for decisions (${job.state}).`);
    if (recorded.outcome === 'expired')
      throw new ConflictError(
        `The turn waited for decisions until ${new Date(recorded.expiresAt).toISOString()}: its undecided calls count as declined.`,
      );
    if (recorded.outcome === 'unknown')
      throw ValidationError.field(
        'decisions',
        `No proposed call of this turn waits under the id ${recorded.ids.map((id) => `'${id}'`).join(', ')}.`,
      );
    if (!recorded.complete) return { job_id: jobId, status: 'awaiting_approval' };
    await this.deps.queue.resume(jobId);
    return { job_id: jobId, status: 'queued' };
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}
