import type { Committed, HoldLimits, SpentToday, TokenHold, TokenUsageStore } from '../../../src/chat/usage/token-usage.port.js';

/**
 * The usage store's budget side in memory, following the Redis adapter's rules: what users spent,
 * by `day/user/model`, and each user's holds by turn; a hold is checked and placed with no await
 * between the two, lapsed holds go, and a turn's own last hold is not counted against it.
 */
export class MemoryTokenUsage implements Pick<TokenUsageStore, 'spent' | 'hold' | 'release'> {
  readonly holds = new Map<string, TokenHold>();

  constructor(
    readonly entries: Record<string, number> = {},
    private readonly now: () => number = Date.now,
  ) {}

  async spent(userId: string, day: string, model?: string): Promise<SpentToday> {
    const mine = Object.entries(this.entries).filter(([key]) => key.startsWith(`${day}/${userId}/`));
    return {
      total: mine.reduce((sum, [, tokens]) => sum + tokens, 0),
      onModel: mine.filter(([key]) => key.endsWith(`/${model}`)).reduce((sum, [, tokens]) => sum + tokens, 0),
    };
  }

  async hold(hold: TokenHold, limits: HoldLimits, day: string): Promise<{ placed: boolean } & Committed> {
    const spent = await this.spent(hold.userId, day, hold.model);
    const held = { total: 0, onModel: 0 };
    for (const [id, other] of this.holds) {
      if (other.expiresAt <= this.now()) this.holds.delete(id);
      else if (other.userId === hold.userId && other.id !== hold.id) {
        held.total += other.tokens;
        if (other.model === hold.model) held.onModel += other.tokens;
      }
    }
    const placed = !(
      (limits.total > 0 && spent.total + held.total >= limits.total) ||
      (limits.onModel > 0 && spent.onModel + held.onModel >= limits.onModel)
    );
    if (placed) this.holds.set(hold.id, hold);
    return { placed, spent, held };
  }

  async release(_userId: string, id: string): Promise<void> {
    this.holds.delete(id);
  }
}
