import { expect } from 'chai';
import { TokenBudget } from '../../src/chat/usage/token-budget.js';
import type { SpentToday, TokenUsageStore } from '../../src/chat/usage/token-usage.port.js';
import { utcDay } from '../../src/chat/usage/utc-days.js';
import { RateLimitedError } from '../../src/kernel/errors.js';

/** What users spent, by day, user and model: the store's `spent` over a map. */
function spentBy(entries: Record<string, number>): Pick<TokenUsageStore, 'spent'> {
  return {
    async spent(userId, day, model): Promise<SpentToday> {
      const mine = Object.entries(entries).filter(([key]) => key.startsWith(`${day}/${userId}/`));
      return {
        total: mine.reduce((sum, [, tokens]) => sum + tokens, 0),
        onModel: mine.filter(([key]) => key.endsWith(`/${model}`)).reduce((sum, [, tokens]) => sum + tokens, 0),
      };
    },
  };
}

describe('TokenBudget', () => {
  const evening = Date.parse('2025-03-04T23:59:30Z');
  const usage = spentBy({ '2025-03-04/u1/small': 60, '2025-03-04/u1/large': 40 });
  const small = { name: 'small', daily_token_budget: null };
  const large = { name: 'large', daily_token_budget: 40 };

  it('refuses a turn once the user spent their daily budget, until UTC midnight', async () => {
    let now = evening;
    const budget = new TokenBudget({ usage, perUserPerDay: 100, now: () => now });
    const refused = await budget.admit('u1', small).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).to.equal(30);
    expect((refused as RateLimitedError).message)
      .to.include('daily token budget (100 tokens)')
      .and.include('00:00 UTC');
    // The next day starts afresh.
    now = Date.parse('2025-03-05T00:00:00Z');
    expect(utcDay(now)).to.equal('2025-03-05');
    await budget.admit('u1', small);
  });

  it("counts a model's own budget on that model only, and another user's spending not at all", async () => {
    const budget = new TokenBudget({ usage, perUserPerDay: 1_000, now: () => evening });
    await budget.admit('u1', small);
    await budget.admit('u2', large);
    await budget.admit('u1', { ...large, daily_token_budget: 41 });
    const refused = await budget.admit('u1', large).catch((error: unknown) => error);
    expect((refused as RateLimitedError).message).to.include("on model 'large' (40 tokens)");
  });

  it("says what is left of each budget a user's turns meet today, as admit counts it", async () => {
    const budget = new TokenBudget({ usage, perUserPerDay: 80, now: () => evening });
    expect(await budget.standing('u1', [small, large])).to.deep.equal([
      { model: null, limit: 80, spent: 100, left: 0 },
      { model: 'large', limit: 40, spent: 40, left: 0 },
    ]);
    expect(await budget.standing('u2', [small, { ...large, daily_token_budget: 50 }])).to.deep.equal([
      { model: null, limit: 80, spent: 0, left: 80 },
      { model: 'large', limit: 50, spent: 0, left: 50 },
    ]);
    expect(await new TokenBudget({ usage, perUserPerDay: 0, now: () => evening }).standing('u1', [small])).to.deep.equal([]);
  });

  it('has no limit when neither the setting nor the model sets one', async () => {
    const budget = new TokenBudget({ usage, perUserPerDay: 0, now: () => evening });
    await budget.admit('u1', small);
    expect(budget.exhausted({ total: 1e9, onModel: 1e9 }, small)).to.equal(false);
    expect(budget.exhausted({ total: 10, onModel: 50 }, large)).to.equal(true);
  });
});
