import type { HostAnswer, HostSession, HostState } from '../host-state.port.js';

interface Waiting {
  caller: string;
  answer?: HostAnswer;
  /** Set while awaitAnswer waits. */
  take?: (answer: HostAnswer) => void;
}

/** The tool server's state in process: stdio, or one HTTP instance without Redis. Entries expire like Redis keys would. */
export class MemoryHostState implements HostState {
  private readonly sessions = new Map<string, { session: HostSession; until: number }>();
  private readonly usedTokens = new Map<string, number>();
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly now: () => number = Date.now) {}

  async openSession(id: string, session: HostSession, ttlMs: number): Promise<void> {
    this.sweep();
    this.sessions.set(id, { session, until: this.now() + ttlMs });
  }

  async session(id: string, caller: string): Promise<HostSession | undefined> {
    const kept = this.sessions.get(id);
    return kept && kept.until > this.now() && kept.session.caller === caller ? kept.session : undefined;
  }

  async claimToken(id: string, ttlMs: number): Promise<boolean> {
    this.sweep();
    if (this.usedTokens.has(id)) return false;
    this.usedTokens.set(id, this.now() + ttlMs);
    return true;
  }

  async expectAnswer(id: string, caller: string): Promise<void> {
    this.waiting.set(id, { caller });
  }

  async awaitAnswer(id: string, ttlMs: number, signal: AbortSignal): Promise<HostAnswer | undefined> {
    const waiting = this.waiting.get(id);
    if (!waiting) return undefined;
    try {
      if (waiting.answer) return waiting.answer;
      return await new Promise<HostAnswer | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), ttlMs);
        const stop = () => resolve(undefined);
        signal.addEventListener('abort', stop, { once: true });
        waiting.take = (answer) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', stop);
          resolve(answer);
        };
      });
    } finally {
      this.waiting.delete(id);
    }
  }

  async deliverAnswer(answer: HostAnswer, caller: string): Promise<boolean> {
    const waiting = this.waiting.get(String(answer.id));
    if (!waiting || waiting.caller !== caller || waiting.answer) return false;
    waiting.answer = answer;
    waiting.take?.(answer);
    return true;
  }

  /** Forgets what expired. */
  private sweep(): void {
    const now = this.now();
    for (const [id, kept] of this.sessions) if (kept.until <= now) this.sessions.delete(id);
    for (const [id, until] of this.usedTokens) if (until <= now) this.usedTokens.delete(id);
  }
}
