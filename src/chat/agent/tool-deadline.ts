import { linkedSignal } from '../../kernel/linked-signal.js';

/**
 * The time limits of one tool call: `idleMs` since it started or last reported progress (held
 * while its server waits on the user's answer), and `maxMs` however often it reports; both end
 * with the turn's own signal. Its signal aborting cancels the call at its server.
 */
export class ToolDeadline {
  private readonly total;
  private readonly idle;

  constructor(
    turnSignal: AbortSignal,
    private readonly idleMs: number,
    private readonly maxMs: number,
  ) {
    // A total no longer than the idle limit is that limit (no progress can stretch it).
    this.total = linkedSignal([turnSignal], maxMs > idleMs ? maxMs : undefined);
    this.idle = linkedSignal([this.total.signal], idleMs);
  }

  get signal(): AbortSignal {
    return this.idle.signal;
  }

  /** The call reported progress: its idle limit starts again. */
  progressed(): void {
    this.idle.restart();
  }

  /** The call waits on the user (a question from its server): the idle limit stops until `progressed`. */
  hold(): void {
    this.idle.hold();
  }

  /** What the model hears when a limit cut the call; undefined when none did. */
  get timeoutMessage(): string | undefined {
    if (this.total.timedOut)
      return `error: the tool ran longer than ${Math.max(this.idleMs, this.maxMs) / 1_000} s (MCP_TOOL_MAX_S) and was cancelled`;
    if (this.idle.timedOut) return `error: the tool did not answer within ${this.idleMs / 1_000} s`;
    return undefined;
  }

  dispose(): void {
    this.idle.dispose();
    this.total.dispose();
  }
}
