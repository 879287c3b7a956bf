import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import type { ElicitationAction, ElicitationStore } from './elicitation-store.port.js';
import { checkElicitedContent } from './elicited-content.js';
import { ownedTurn, type ChatTurnQueue } from './turn-jobs.js';

/** The user's answer to a server's question, the protocol's own shape. */
export interface ElicitationReply {
  action: ElicitationAction;
  /** Checked against the question's requested schema before it counts. */
  content?: Record<string, unknown>;
}

export interface ElicitationsDependencies {
  queue: Pick<ChatTurnQueue, 'get'>;
  elicitations: Pick<ElicitationStore, 'get' | 'answer'>;
  now?: () => number;
}

/**
 * The turn's user answering the questions MCP servers put to them while the turn's tool calls run.
 * Another user's turn is not found; an answer comes once, before its question's wait runs out.
 */
export class ElicitationsService {
  constructor(private readonly deps: ElicitationsDependencies) {}

  async answer(
    userId: string,
    jobId: string,
    id: string,
    reply: ElicitationReply,
  ): Promise<{ job_id: string; id: string; action: ElicitationAction }> {
    const job = await ownedTurn(this.deps.queue, userId, jobId);
    const question = await this.deps.elicitations.get(job.data.turnId, id);
    if (!question) throw new NotFoundError('No question of this turn has the given id.');
    if (reply.action !== 'accept' && reply.content !== undefined)
      throw ValidationError.field('content', 'Only an accepted question takes content.');
    if (reply.action === 'accept' && question.request.mode === 'url' && reply.content !== undefined)
      throw ValidationError.field('content', 'A question answered at its URL takes no content.');
    const content =
      reply.action === 'accept' && question.request.mode === 'form'
        ? checkElicitedContent(question.request.requested_schema, reply.content ?? {})
        : undefined;
    const now = this.deps.now?.() ?? Date.now();
    const recorded = await this.deps.elicitations.answer(
      job.data.turnId,
      id,
      {
        action: reply.action,
        ...(content ? { content } : {}),
        answered_by: userId,
        answered_at: new Date(now).toISOString(),
      },
      now,
    );
    if (recorded.outcome === 'unknown') throw new NotFoundError('No question of this turn has the given id.');
    if (recorded.outcome === 'answered') throw new ConflictError('The question is answered already.');
    if (recorded.outcome === 'expired')
      throw new ConflictError(
        `The question waited for an answer until ${new Date(recorded.expiresAt).toISOString()}: it counts as cancelled.`,
      );
    return { job_id: jobId, id, action: reply.action };
  }
}
