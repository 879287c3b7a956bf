import { NotFoundError } from '../kernel/errors.js';
import type { SessionStore, SessionDetail, SessionSummary } from './session-store.port.js';
import type { ChatModel, ModelDirectory } from './model-directory.js';

export interface SessionsDependencies {
  sessions: Pick<SessionStore, 'list' | 'get' | 'rename' | 'clear'>;
  models: Pick<ModelDirectory, 'all'>;
}

/** A chat user's sessions (each scoped to its user: another's is not found) and the models a turn may name. */
export class SessionsService {
  constructor(private readonly deps: SessionsDependencies) {}

  list(userId: string, offset: number, limit: number): Promise<{ count: number; results: SessionSummary[] }> {
    return this.deps.sessions.list(userId, offset, limit);
  }

  async get(userId: string, sessionId: string): Promise<SessionDetail> {
    const session = await this.deps.sessions.get(userId, sessionId);
    if (!session) throw sessionNotFound();
    return session;
  }

  async rename(userId: string, sessionId: string, title: string): Promise<SessionSummary> {
    const session = await this.deps.sessions.rename(userId, sessionId, title.trim());
    if (!session) throw sessionNotFound();
    return session;
  }

  /** Deletes the session's messages for good; turns still running for it are answered but not stored. */
  async clear(userId: string, sessionId: string): Promise<void> {
    if (!(await this.deps.sessions.clear(userId, sessionId))) throw sessionNotFound();
  }

  /** The models a turn may name, for anyone who may chat. */
  models(): Promise<ChatModel[]> {
    return this.deps.models.all();
  }
}

function sessionNotFound(): NotFoundError {
  return new NotFoundError('No chat session matches the given id.');
}
