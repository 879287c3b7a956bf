import type { LlmProvider } from '../../records/llm-model.js';

/** Tokens of one or more model calls, as the provider reported them. */
export interface TokenCount {
  input_tokens: number;
  output_tokens: number;
}

/** One model call's tokens and whose they are. */
export interface UsageEntry {
  /** The user's name (their id when the turn carried no token), as the audit log shows it. */
  user: string;
  userId: string;
  /** The model record's name. */
  model: string;
  provider: LlmProvider;
  tokens: TokenCount;
  at: Date;
}

/** A user's tokens of one UTC day after a call: in all, and on the call's model. */
export interface SpentToday {
  total: number;
  onModel: number;
}

/** A turn's claim on its user's budgets: the tokens its next step may spend at most, until it settles or expires. */
export interface TokenHold {
  /** The turn's id: one hold per turn, a new one replacing the last. */
  id: string;
  userId: string;
  model: string;
  tokens: number;
  /** When the hold lapses by itself (ms since the epoch), should its turn never settle. */
  expiresAt: number;
}

/** The daily limits a hold is checked against, in tokens; 0: none. */
export interface HoldLimits {
  total: number;
  onModel: number;
}

/** What a user spent today and what their other turns hold, in all and on a model. */
export interface Committed {
  spent: SpentToday;
  held: SpentToday;
}

/** One user's tokens on one model on one UTC day. */
export interface UsageRow extends TokenCount {
  /** YYYY-MM-DD (UTC). */
  day: string;
  user: string;
  user_id: string;
  model: string;
  provider: LlmProvider;
}

export interface UsageQuery {
  /** A user name or id. */
  user?: string;
  model?: string;
  /** First and last UTC day, YYYY-MM-DD, both included. */
  since: string;
  until: string;
}

/** Port: tokens per user, model and UTC day, shared by every process and kept for a retention period. */
export interface TokenUsageStore {
  /** Adds a call's tokens to its user, model and day; answers the user's totals for that day with it. */
  add(entry: UsageEntry): Promise<SpentToday>;
  /**
   * In one atomic step: unless what the user spent today plus what their other turns hold reaches
   * a limit, places `hold` (replacing the turn's last). Answers whether it was placed, and the figures it was judged on.
   */
  hold(hold: TokenHold, limits: HoldLimits, day: string): Promise<{ placed: boolean } & Committed>;
  /** Ends a turn's hold (its turn is over). */
  release(userId: string, id: string): Promise<void>;
  /** What a user spent on `day`: in all, and on `model` (0 without one). */
  spent(userId: string, day: string, model?: string): Promise<SpentToday>;
  /** The rows of the days from `since` to `until` that match, by day then user then model. */
  list(query: UsageQuery): Promise<UsageRow[]>;
  /** How many days back rows are kept (a listing reaches no further). */
  readonly retentionDays: number;
}
