import type { ApprovalRequest, ChatProgress, ChatProgressLog, ConnectRequired } from './chat.jobs.js';
import type { ApprovalStore } from './approval-store.port.js';
import type { ElicitationStore } from './elicitation-store.port.js';
import type { TurnTextFeed, TurnTextPiece } from './turn-text.port.js';
import { ownedTurn, turnError, turnView, type ChatJobView, type ChatTurnQueue } from './turn-jobs.js';

/**
 * A turn's reports and text merged as the turn wrote them: a step's text comes before the calls
 * it proposed and their results, which come before the next step's text. A report without a step
 * (connect_required) belongs to the step of the report before it.
 */
export function inWrittenOrder(reports: ChatProgress[], text: TurnTextPiece[]): Array<ChatProgress | TurnTextPiece> {
  const merged: Array<ChatProgress | TurnTextPiece> = [];
  let step = 0;
  let next = 0;
  for (const report of reports) {
    if ('step' in report) step = report.step;
    while (next < text.length && text[next]!.step <= step) merged.push(text[next++]!);
    merged.push(report);
  }
  return [...merged, ...text.slice(next)];
}

/** One event of a turn's event stream. */
export type ChatStreamEvent =
  | { event: 'queued' | 'active'; data: { job_id: string } }
  | { event: 'tool_call'; data: { job_id: string; step: number; id: string; name: string; arguments: Record<string, unknown> } }
  | { event: 'tool_result'; data: { job_id: string; step: number; id: string; name: string; ok: boolean; content: string } }
  | { event: 'approval_required'; data: { job_id: string; step: number; approvals: ApprovalRequest[]; expires: string } }
  | {
      event: 'approval_decided';
      data: { job_id: string; step: number; id: string; name: string; approved: boolean; note?: string; decided_by: string | null };
    }
  | { event: 'tool_progress'; data: { job_id: string } & Omit<Extract<ChatProgress, { type: 'tool_progress' }>, 'type'> }
  | { event: 'elicitation_required'; data: { job_id: string } & Omit<Extract<ChatProgress, { type: 'elicitation_required' }>, 'type'> }
  | { event: 'elicitation_answered'; data: { job_id: string } & Omit<Extract<ChatProgress, { type: 'elicitation_answered' }>, 'type'> }
  | { event: 'connect_required'; data: { job_id: string } & ConnectRequired }
  | { event: 'delta'; data: { job_id: string } & TurnTextPiece }
  | { event: 'completed'; data: { job_id: string; session_id: string; model: string; response: string } }
  | { event: 'failed'; data: { job_id: string; error: string } };

export interface ChatStream {
  /** Resolves after the final event (completed or failed). */
  done: Promise<void>;
  close(): void;
}

export interface TurnEventsDependencies {
  queue: Pick<ChatTurnQueue, 'get' | 'watch'>;
  /** Where a queued turn's calls wait for decisions (its status is then awaiting_approval). */
  approvals: Pick<ApprovalStore, 'get'>;
  /** Where MCP servers' questions to the turn's user wait (the job's `elicitations`). */
  elicitations?: Pick<ElicitationStore, 'list'>;
  /** The text of running turns, streamed as `delta` events; without it streams carry no text until `completed`. */
  text?: Pick<TurnTextFeed, 'follow'>;
  /** The clock a wait for decisions runs out by. */
  now?: () => number;
}

/**
 * How a client follows one of its turns: the state it is in when polled, or its events as they
 * come, starting with that state and what the turn reported before the stream opened. Another
 * user's turn is not found.
 */
export class TurnEventsService {
  private readonly streams = new Set<ChatStream>();

  constructor(private readonly deps: TurnEventsDependencies) {}

  async job(userId: string, jobId: string): Promise<ChatJobView> {
    return turnView(this.deps, userId, jobId);
  }

  /** Streams a turn's events to `emit`, starting with its current state; ends after completed or failed. */
  async stream(userId: string, jobId: string, emit: (event: ChatStreamEvent) => void): Promise<ChatStream> {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    let started = false;
    let finished = false;
    /** Progress events already sent: every update carries the whole log, only the rest is new. */
    let reported = 0;
    let stopText = () => {};
    const stopListening = () => {
      unsubscribe();
      stopText();
    };
    const sendDelta = (piece: TurnTextPiece) => send({ event: 'delta', data: { job_id: jobId, ...piece } });
    /**
     * Until the stream has replayed what came before it, the text and the reports heard are held:
     * the replay interleaves them as they were written (see inWrittenOrder).
     */
    let replaying = true;
    const heldText: TurnTextPiece[] = [];
    let heldLog: ChatProgress[] = [];
    const sendProgress = (log: ChatProgressLog) => {
      if (replaying) {
        if (log.events.length > heldLog.length) heldLog = log.events;
        return;
      }
      for (const progress of log.events.slice(reported))
        send({ event: progress.type, data: { job_id: jobId, ...progress } } as ChatStreamEvent);
      reported = Math.max(reported, log.events.length);
    };
    const send = (event: ChatStreamEvent) => {
      if (finished) return;
      started = true;
      if (event.event === 'completed' || event.event === 'failed') {
        finished = true;
        stopListening();
        finish();
      }
      emit(event);
    };
    // The outcome heard while the stream still reads what came before it waits for that: the text
    // and the reports written before a turn's outcome come before it on the stream too.
    let caughtUp = false;
    let heldOutcome: ChatStreamEvent | undefined;
    const sendOutcome = (event: ChatStreamEvent) => {
      if (caughtUp) send(event);
      else heldOutcome ??= event;
    };
    const unsubscribe = this.deps.queue.watch(jobId, (event) => {
      switch (event.type) {
        case 'queued':
        case 'active':
          return send({ event: event.type, data: { job_id: jobId } });
        case 'progress':
          return sendProgress(event.data);
        case 'completed':
          return sendOutcome({
            event: 'completed',
            data: { job_id: jobId, session_id: event.result.sessionId, model: event.result.model, response: event.result.response },
          });
        case 'failed':
          return sendOutcome({ event: 'failed', data: { job_id: jobId, error: turnError(event.failedReason) } });
      }
    });
    const job = await ownedTurn(this.deps.queue, userId, jobId).catch((error: unknown) => {
      unsubscribe();
      throw error;
    });
    if (!started && job.state !== 'completed' && job.state !== 'failed') {
      send({ event: job.state === 'active' ? 'active' : 'queued', data: { job_id: jobId } });
    }
    // The text written so far, then as it comes; before a finished turn's outcome.
    if (this.deps.text) {
      stopText = await this.deps.text
        .follow(jobId, (piece) => (replaying ? heldText.push(piece) : sendDelta(piece)))
        .catch((error: unknown) => {
          unsubscribe();
          throw error;
        });
      if (finished) stopText();
    }
    // What the turn wrote and reported before this stream opened, in the order it did.
    if ((job.progress?.events.length ?? 0) > heldLog.length) heldLog = job.progress!.events;
    for (const written of inWrittenOrder(heldLog, heldText)) {
      if ('type' in written) send({ event: written.type, data: { job_id: jobId, ...written } } as ChatStreamEvent);
      else sendDelta(written);
    }
    reported = heldLog.length;
    replaying = false;
    if (job.state === 'completed' && job.result) {
      send({
        event: 'completed',
        data: { job_id: jobId, session_id: job.data.sessionId, model: job.result.model, response: job.result.response },
      });
    } else if (job.state === 'failed') {
      send({ event: 'failed', data: { job_id: jobId, error: turnError(job.failedReason) } });
    }
    caughtUp = true;
    if (heldOutcome) send(heldOutcome);
    const stream: ChatStream = {
      done,
      close: () => {
        finished = true;
        stopListening();
        finish();
      },
    };
    this.streams.add(stream);
    void done.then(() => this.streams.delete(stream));
    return stream;
  }

  /** Ends every open event stream (shutdown). */
  closeStreams(): void {
    for (const stream of this.streams) stream.close();
  }
}
