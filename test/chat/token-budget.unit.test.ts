import { expect } from 'chai';
import { TokenBudget } from '../../src/chat/usage/token-budget.js';
import { utcDay, waitInWords } from '../../src/chat/usage/utc-days.js';
import { RateLimitedError } from '../../src/kernel/errors.js';
import { MemoryTokenUsage } from '../support/fakes/memory-token-usage.js';

const HOLD_MS = 60_000;

describe('TokenBudget', () => {
  const evening = Date.parse('2025-03-04T23:59:30Z');
  const spentToday = () => new MemoryTokenUsage({ '2025-03-04/u1/small': 60, '2025-03-04/u1/large': 40 }, () => evening);
  // A step holds 10 prompt tokens (30 characters) and 10 of answer.
  const small = { name: 'small', daily_token_budget: null, model_config: { max_tokens: 10 } };
  const large = { name: 'large', daily_token_budget: 40, model_config: { max_tokens: 10 } };
  const step = (turnId: string) => ({ turnId, promptChars: 30 });

  it('refuses a turn once the user spent their daily budget, until UTC midnight', async () => {
    let now = evening;
    const budget = new TokenBudget({ usage: spentToday(), perUserPerDay: 100, holdMs: HOLD_MS, now: () => now });
    const refused = await budget.admit('u1', small, step('t1')).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).to.equal(30);
    expect((refused as RateLimitedError).message)
      .to.include('daily token budget (100 tokens)')
      .and.include('it resets at 00:00 UTC, in 30 s.');
    // The next day starts afresh.
    now = Date.parse('2025-03-05T00:00:00Z');
    expect(utcDay(now)).to.equal('2025-03-05');
    await budget.admit('u1', small, step('t1'));
  });

  it("counts a model's own budget on that model only, and another user's spending not at all", async () => {
    const budget = new TokenBudget({ usage: spentToday(), perUserPerDay: 1_000, holdMs: HOLD_MS, now: () => evening });
    await budget.admit('u1', small, step('t1'));
    await budget.admit('u2', large, step('t2'));
    await budget.admit('u1', { ...large, daily_token_budget: 41 }, step('t3'));
    const refused = await budget.admit('u1', large, step('t4')).catch((error: unknown) => error);
    expect((refused as RateLimitedError).message).to.include("on model 'large' (40 tokens)");
  });

  it("applies a model's own budget and the one over every model both: the model's only narrows", async () => {
    const budget = new TokenBudget({ usage: spentToday(), perUserPerDay: 100, holdMs: HOLD_MS, now: () => evening });
    const roomy = { name: 'roomy', daily_token_budget: 100_000_000, model_config: {} };
    const refused = await budget.admit('u1', roomy, step('t1')).catch((error: unknown) => error);
    expect(refused, 'a roomy model does not lift the budget over every model').to.be.instanceOf(RateLimitedError);
    expect((refused as RateLimitedError).message).to.include('daily token budget (100 tokens)');
  });

  it("holds each admitted turn's worst-case step, so turns asked at once spend at most the budget and one step", async () => {
    const usage = new MemoryTokenUsage({}, () => evening);
    const budget = new TokenBudget({ usage, perUserPerDay: 1_500, holdMs: HOLD_MS, now: () => evening });
    // Prompt of 300 characters (100 tokens at most) and answers of at most 400 tokens: 500 a step.
    const stepping = { name: 'small', daily_token_budget: null, model_config: { max_tokens: 400 } };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) => budget.admit('u1', stepping, { turnId: `t${index}`, promptChars: 300 })),
    );
    const admitted = outcomes.filter(({ status }) => status === 'fulfilled').length;
    expect(admitted, 'three holds of 500 fill a budget of 1,500').to.equal(3);
    for (const outcome of outcomes.filter((settled) => settled.status === 'rejected'))
      expect(outcome.reason).to.be.instanceOf(RateLimitedError);
    // A turn that ends gives its hold back; a spent step counts, and the turn's next step must fit too.
    await budget.release('u1', stepping, 't0');
    usage.entries['2025-03-04/u1/small'] = 1_000;
    expect(await budget.nextStep('u1', stepping, { turnId: 't1', promptChars: 300 })).to.include('was reached during this turn');
    expect(
      await new TokenBudget({ usage, perUserPerDay: 5_000, holdMs: HOLD_MS, now: () => evening }).nextStep('u1', stepping, step('t1')),
    ).to.equal(undefined);
  });

  it('lets a hold lapse when its turn never settles', async () => {
    let now = evening - HOLD_MS;
    const budget = new TokenBudget({ usage: new MemoryTokenUsage({}, () => now), perUserPerDay: 10, holdMs: HOLD_MS, now: () => now });
    await budget.admit('u1', small, step('lost'));
    expect(await budget.admit('u1', small, step('next')).catch((error: unknown) => error)).to.be.instanceOf(RateLimitedError);
    now = evening;
    await budget.admit('u1', small, step('next'));
  });

  it("says what is left of each budget a user's turns meet today, as admit counts it", async () => {
    const budget = new TokenBudget({ usage: spentToday(), perUserPerDay: 80, holdMs: HOLD_MS, now: () => evening });
    expect(await budget.standing('u1', [small, large])).to.deep.equal([
      { model: null, limit: 80, spent: 100, left: 0 },
      { model: 'large', limit: 40, spent: 40, left: 0 },
    ]);
    expect(await budget.standing('u2', [small, { ...large, daily_token_budget: 50 }])).to.deep.equal([
      { model: null, limit: 80, spent: 0, left: 80 },
      { model: 'large', limit: 50, spent: 0, left: 50 },
    ]);
    const none = new TokenBudget({ usage: spentToday(), perUserPerDay: 0, holdMs: HOLD_MS, now: () => evening });
    expect(await none.standing('u1', [small])).to.deep.equal([]);
  });

  it('has no limit, and holds nothing, when neither the setting nor the model sets one', async () => {
    const usage = spentToday();
    const budget = new TokenBudget({ usage, perUserPerDay: 0, holdMs: HOLD_MS, now: () => evening });
    await budget.admit('u1', small, step('t1'));
    expect(usage.holds.size).to.equal(0);
    expect(await budget.admit('u1', large, step('t2')).catch((error: unknown) => error)).to.be.instanceOf(RateLimitedError);
  });

  it('says how long until the reset in hours and minutes, not in seconds', async () => {
    const morning = Date.parse('2025-03-04T00:48:09Z');
    const budget = new TokenBudget({
      usage: new MemoryTokenUsage({ '2025-03-04/u1/small': 100 }, () => morning),
      perUserPerDay: 100,
      holdMs: HOLD_MS,
      now: () => morning,
    });
    const refused = (await budget.admit('u1', small, step('t1')).catch((error: unknown) => error)) as RateLimitedError;
    expect(refused.retryAfterSeconds).to.equal(83_511);
    expect(refused.message).to.include('it resets at 00:00 UTC, in 23 h 12 min.');
    expect([59, 60, 61, 3_600, 3_601].map(waitInWords)).to.deep.equal(['59 s', '1 min', '2 min', '1 h', '1 h 1 min']);
  });
});
