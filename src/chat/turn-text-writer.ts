import type { TextSink } from './providers/provider.port.js';
import type { TurnTextFeed, TurnTextPiece } from './turn-text.port.js';

/**
 * One turn's text on its way to the feed: the provider's deltas gathered and sent at most every
 * `intervalMs`, so a long answer costs a few writes per second rather than one per token. Writes
 * go out in order; a failed one is dropped (the finished answer still arrives whole).
 */
export class TurnTextWriter {
  private pending: TurnTextPiece | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> = Promise.resolve();
  /** Steps whose text has been sent: only theirs can need a reset without text (a retried call). */
  private readonly written = new Set<number>();

  constructor(
    private readonly feed: Pick<TurnTextFeed, 'append'>,
    private readonly jobId: string,
    private readonly intervalMs: number,
  ) {}

  /** The text sink of one step (one provider call). */
  step(step: number): TextSink {
    this.start(step);
    return {
      text: (delta) => {
        const pending = this.pending?.step === step ? this.pending : this.start(step, false);
        pending.text += delta;
        this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
      },
      restart: () => void this.start(step),
    };
  }

  /** Sends what is gathered; resolves once everything written so far is in the feed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const piece = this.pending;
    this.pending = null;
    if (piece && (piece.text || (piece.reset && this.written.has(piece.step)))) {
      if (piece.text) this.written.add(piece.step);
      this.sending = this.sending.then(() => this.feed.append(this.jobId, piece).catch(() => undefined));
    }
    return this.sending;
  }

  /** Starts gathering a new piece of `step`, sending the one before. */
  private start(step: number, reset = true): TurnTextPiece {
    if (this.pending) void this.flush();
    this.pending = { step, reset, text: '' };
    return this.pending;
  }
}
