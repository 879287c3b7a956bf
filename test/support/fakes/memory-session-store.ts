import type {
  AppendOutcome,
  SessionStore,
  SessionDetail,
  SessionSummary,
  StoredMessage,
  StoredTurn,
  TurnToStore,
} from '../../../src/chat/session-store.port.js';

interface Session {
  title: string;
  model: string;
  created: string;
  updated: string;
  messages: StoredMessage[];
  turns: Map<string, StoredTurn>;
}

/**
 * A SessionStore in memory with the store's rules: a turn is stored once (keyed by its id),
 * and a clear makes every turn asked before it unstorable (the generation moves on). No expiry.
 */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly generations = new Map<string, number>();
  /** Runs before an append is decided: a test stores or clears there to play another process. */
  beforeAppend?: (turn: TurnToStore) => Promise<void> | void;

  constructor(private readonly now: () => Date = () => new Date(0)) {}

  async generation(userId: string, sessionId: string): Promise<number> {
    return this.generations.get(key(userId, sessionId)) ?? 0;
  }

  async load(userId: string, sessionId: string, turnId: string): Promise<{ history: StoredMessage[]; stored: StoredTurn | null }> {
    const session = this.sessions.get(key(userId, sessionId));
    return { history: structuredClone(session?.messages ?? []), stored: session?.turns.get(turnId) ?? null };
  }

  async append(userId: string, sessionId: string, turn: TurnToStore): Promise<AppendOutcome> {
    await this.beforeAppend?.(turn);
    const id = key(userId, sessionId);
    const existing = this.sessions.get(id);
    if (existing?.turns.has(turn.turnId)) return 'duplicate';
    if ((this.generations.get(id) ?? 0) !== turn.generation) return 'cleared';
    const now = this.now().toISOString();
    const session: Session = existing ?? {
      title: turn.title,
      model: turn.model,
      created: now,
      updated: now,
      messages: [],
      turns: new Map(),
    };
    session.messages.push(...structuredClone(turn.messages));
    session.turns.set(turn.turnId, { turn_id: turn.turnId, response: turn.response, model: turn.model, created: now });
    session.model = turn.model;
    session.updated = now;
    this.sessions.set(id, session);
    return 'stored';
  }

  async list(userId: string, offset: number, limit: number): Promise<{ count: number; results: SessionSummary[] }> {
    const mine = [...this.sessions.entries()]
      .filter(([id]) => id.startsWith(`${userId}\n`))
      .map(([id, session]) => summary(id.split('\n')[1] as string, session));
    mine.sort((a, b) => b.updated.localeCompare(a.updated));
    return { count: mine.length, results: mine.slice(offset, offset + limit) };
  }

  async get(userId: string, sessionId: string): Promise<SessionDetail | null> {
    const session = this.sessions.get(key(userId, sessionId));
    return session ? { ...summary(sessionId, session), messages: structuredClone(session.messages) } : null;
  }

  async rename(userId: string, sessionId: string, title: string): Promise<SessionSummary | null> {
    const session = this.sessions.get(key(userId, sessionId));
    if (!session) return null;
    session.title = title;
    return summary(sessionId, session);
  }

  async clear(userId: string, sessionId: string): Promise<boolean> {
    const id = key(userId, sessionId);
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
    return this.sessions.delete(id);
  }

  async removeExpired(): Promise<{ sessions: number }> {
    return { sessions: 0 };
  }
}

function key(userId: string, sessionId: string): string {
  return `${userId}\n${sessionId}`;
}

function summary(id: string, session: Session): SessionSummary {
  return { id, title: session.title, model: session.model, turns: session.turns.size, created: session.created, updated: session.updated };
}
