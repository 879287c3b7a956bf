import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { RedisTokenUsage } from '../../src/chat/usage/redis-token-usage.adapter.js';
import type { TokenCount } from '../../src/chat/usage/token-usage.port.js';
import type { ChatHarness } from '../chat/chat-harness.js';
import { replyFor } from '../support/provider-stubs.js';
import path from 'node:path';
import { accessibilityViolations, ARTIFACTS, type TestBrowser } from './browser.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

const DAY_MS = 86_400_000;
const USAGE_REQUESTS = /\/api\/plugins\/ai-ops\/usage\//;

/** The axe-core audit of the page as it is, in both themes. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await accessibilityViolations(page), `${what}, ${colorScheme}`).to.deep.equal([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The cells of a table's body, row by row. */
const cells = (page: Page, table: string) =>
  page.locator(`${table} tbody tr`).evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? '')));

describe('token usage pages in a real browser: the admin page’s Usage section, the chat page’s own usage', function () {
  this.timeout(90_000);
  let web: WebHarness;
  let sut: ChatHarness;
  let browser: TestBrowser;
  let keys: { alice: string; carol: string };
  /** Token counts and costs (all under 1 here) as the page writes them, in the browser's language. */
  let count: (value: number) => string;
  let cost: (value: number) => string;

  before(async function () {
    web = await startWebHarness(this, { CHAT_TOKEN_BUDGET_PER_DAY: '100' });
    ({ sut, browser } = web);
    await sut.model({ name: 'gpt-4o', price_per_million_input_tokens: 2, price_per_million_output_tokens: 10 });
    await sut.model({ name: 'llama3', is_default: false, daily_token_budget: 500 });
    const token = (username: string, permissions: ('ai_ops.chat' | 'ai_ops.view_usage')[]) =>
      sut.records.tokens.create({ username, superuser: false, permissions, writeEnabled: true, expires: null });
    const [alice, bob, carol] = await Promise.all([
      token('alice', ['ai_ops.chat']),
      token('bob', ['ai_ops.chat']),
      token('carol', ['ai_ops.chat', 'ai_ops.view_usage']),
    ]);
    keys = { alice: alice.key, carol: carol.key };
    // Earlier days through the usage port, as the workers count them; today's through a real turn.
    const usage = new RedisTokenUsage(web.redis.client, { prefix: sut.prefix, retentionDays: 90 });
    const spent = (who: typeof alice, model: string, daysAgo: number, tokens: TokenCount) =>
      usage.add({
        user: who.token.username,
        userId: who.token.user_id,
        model,
        provider: 'openai',
        tokens,
        at: new Date(Date.now() - daysAgo * DAY_MS),
      });
    await spent(alice, 'gpt-4o', 3, { input_tokens: 1_000, output_tokens: 200 });
    await spent(alice, 'gpt-4o', 1, { input_tokens: 500, output_tokens: 100 });
    await spent(bob, 'llama3', 2, { input_tokens: 4_000, output_tokens: 1_000 });
    await spent(bob, 'llama3', 10, { input_tokens: 7_000, output_tokens: 3_000 });
    sut.stub.respondWith(replyFor('openai', 'Hello.'));
    expect((await sut.call('POST', '/plugins/ai-ops/api/chat/', { key: alice.key, body: { message: 'hi' } })).status).to.equal(200);
  });
  after(async () => {
    await web?.close();
  });

  async function learnLocale(page: Page): Promise<void> {
    const locale = await page.evaluate<string>('navigator.language');
    count = (value) => value.toLocaleString(locale);
    cost = (value) =>
      value.toLocaleString(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 4, maximumFractionDigits: 4 });
  }

  async function openAdmin(key: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const opened = await browser.page();
    await web.open(opened.page, 'admin', key, '?refresh=300');
    // Every section has loaded (or failed) once.
    await opened.page.locator('#refresh-note', { hasText: 'Updated' }).waitFor();
    await learnLocale(opened.page);
    return opened;
  }

  it('draws tokens and cost per day with its figures as a table, and the top users and models', async () => {
    const { page, errors } = await openAdmin(web.adminKey);
    const summary = page.locator('#usage-summary');
    await summary.filter({ hasText: 'output tokens' }).waitFor();
    // 30 days; llama3 has no price, so the total has none.
    expect(await summary.textContent()).to.include(
      `${count(12_511)} input and ${count(4_307)} output tokens, cost unknown (a model has no price)`,
    );

    const chart = page.getByRole('img', { name: 'Tokens and cost per day' });
    expect(await chart.getAttribute('id')).to.equal('usage-chart-image');
    expect(await chart.locator('g[data-day]').count()).to.equal(30);
    const description = await page.locator('#usage-chart-image-desc').textContent();
    expect(description)
      .to.include('Busiest day')
      .and.include(`${count(10_000)} tokens`);
    // gpt-4o has prices: the three days alice spent on it are marked on the cost line, which breaks
    // at llama3's two days (no price) rather than pass for a cost there.
    expect(await chart.locator('.chart-cost-point').count()).to.equal(3);
    expect(await chart.locator('polyline.chart-cost').count()).to.equal(3);
    expect(await page.locator('.chart-legend li').allTextContents()).to.deep.equal([
      'Input tokens (left axis)',
      'Output tokens (left axis)',
      'Cost (right axis)',
    ]);

    expect(await cells(page, '#usage-users-table')).to.deep.equal([
      ['bob', count(11_000), count(4_000), 'no price'],
      ['alice', count(1_511), count(307), cost(0.006092)],
    ]);
    expect((await cells(page, '#usage-models-table')).map((row) => row[0])).to.deep.equal(['llama3openai', 'gpt-4oopenai']);

    // The figures as a table, one keyboard step after the filters.
    await page.locator('#usage-show').focus();
    await page.keyboard.press('Tab');
    expect(await page.locator('#usage-data summary:focus').count()).to.equal(1);
    await page.keyboard.press('Enter');
    await page.locator('#usage-data[open] table').waitFor();
    const days = await cells(page, '#usage-data table');
    expect(days).to.have.length(30);
    expect(days.filter((row) => row[1] !== '0').map((row) => row.slice(1))).to.deep.equal([
      [count(7_000), count(3_000), 'no price'],
      [count(1_000), count(200), cost(0.004)],
      [count(4_000), count(1_000), 'no price'],
      [count(500), count(100), cost(0.002)],
      [count(11), count(7), cost(0.000092)],
    ]);
    await expectAccessible(page, 'usage section');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.locator('#usage-section').screenshot({ path: path.join(ARTIFACTS, `admin-usage-${colorScheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('filters by period, user and model from the keyboard, and says when nothing matches', async () => {
    const { page, errors } = await openAdmin(web.adminKey);
    const summary = page.locator('#usage-summary');
    await summary.filter({ hasText: 'output tokens' }).waitFor();

    // Period, user, model and Show follow one another in the tab order.
    await page.locator('#usage-period').focus();
    await page.locator('#usage-period').selectOption('7');
    for (const next of ['#usage-user', '#usage-model', '#usage-show']) {
      await page.keyboard.press('Tab');
      expect(await page.locator(`${next}:focus`).count(), next).to.equal(1);
    }
    await page.keyboard.press('Enter');
    // Bob's day ten days ago is out of the last 7.
    await summary.filter({ hasText: `${count(5_511)} input` }).waitFor();
    expect(await page.locator('#usage-chart-image g[data-day]').count()).to.equal(7);

    // Enter in a text filter shows its usage.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await page.locator('#usage-user:focus').count()).to.equal(1);
    await page.keyboard.type('alice');
    await page.keyboard.press('Enter');
    await summary.filter({ hasText: 'for alice' }).waitFor();
    expect(await summary.textContent()).to.include(`${count(1_511)} input and ${count(307)} output tokens, cost ${cost(0.006092)}`);
    expect((await cells(page, '#usage-users-table')).map((row) => row[0])).to.deep.equal(['alice']);
    // The names seen are offered in the filters.
    expect(
      await page.locator('#usage-models option').evaluateAll((options) => options.map((option) => option.getAttribute('value'))),
    ).to.deep.equal(['gpt-4o', 'llama3']);

    await page.locator('#usage-user').fill('');
    await page.locator('#usage-model').fill('llama3');
    await page.locator('#usage-period').selectOption('30');
    await page.locator('#usage-model').press('Enter');
    await summary.filter({ hasText: 'on llama3' }).waitFor();
    expect(await cells(page, '#usage-users-table')).to.deep.equal([['bob', count(11_000), count(4_000), 'no price']]);
    // No known cost: no cost line, no cost in the legend.
    expect(await page.locator('#usage-chart-image .chart-cost').count()).to.equal(0);
    expect(await page.locator('.chart-legend li').count()).to.equal(2);

    await page.locator('#usage-model').fill('mistral');
    await page.locator('#usage-model').press('Enter');
    await summary.filter({ hasText: 'No token usage' }).waitFor();
    expect(await page.locator('#usage-chart').textContent()).to.include('no chat turn spent tokens in this period');
    expect(await page.locator('#usage-data').isHidden()).to.equal(true);
    expect(await cells(page, '#usage-models-table')).to.deep.equal([['No usage in this period.']]);
    await expectAccessible(page, 'usage section, nothing to show');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('shows the section to tokens with ai_ops.view_usage only, and a failed load in its place', async () => {
    const withPermission = await openAdmin(keys.carol);
    await withPermission.page.locator('#usage-summary', { hasText: 'output tokens' }).waitFor();
    expect(await withPermission.page.locator('#usage-section').isVisible()).to.equal(true);
    await withPermission.page.close();

    const without = await openAdmin(keys.alice);
    await without.page.locator('#models-note:not([hidden])').waitFor();
    expect(await without.page.locator('#usage-section').isHidden()).to.equal(true);
    expect(without.requests.filter((url) => url.includes('/api/plugins/ai-ops/usage/'))).to.deep.equal([]);
    await without.page.close();

    const failing = await browser.page();
    await failing.page.route(USAGE_REQUESTS, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ detail: 'token usage is not enabled in this process' }),
      }),
    );
    await web.open(failing.page, 'admin', keys.carol, '?refresh=300');
    await failing.page.locator('#usage-error', { hasText: 'token usage is not enabled in this process' }).waitFor();
    expect(await failing.page.locator('#usage-summary').textContent()).to.equal('');
    expect(await failing.page.locator('#usage-chart-image').count()).to.equal(0);
    await expectAccessible(failing.page, 'usage section, failed');
    await failing.page.close();
  });

  it('chat page: your tokens today and over 30 days, the budget left for the chosen model, read again after a turn', async () => {
    const { page, errors } = await browser.page();
    await web.open(page, 'chat', keys.alice);
    await learnLocale(page);
    const figures = page.locator('#own-usage-figures');
    await figures.locator('dt', { hasText: 'Budget left today' }).waitFor();
    const value = (term: string) => figures.locator(`dt:text-is("${term}") + dd`);
    expect(await value('Today (UTC)').textContent()).to.equal(`18 tokens11 in, 7 out, cost ${cost(0.000092)}`);
    expect(await value('Last 30 days').textContent()).to.include(`${count(1_818)} tokens`);
    expect(await value('Budget left today').textContent()).to.include('82 of 100 tokens');

    sut.stub.respondWith(replyFor('openai', 'Hello again.'));
    await page.locator('#message').focus();
    await page.keyboard.type('and again');
    await page.keyboard.press('Enter');
    await page.locator('.message.assistant', { hasText: 'Hello again.' }).waitFor();
    await value('Today (UTC)').filter({ hasText: '36 tokens' }).waitFor();
    expect(await value('Budget left today').textContent()).to.include('64 of 100 tokens');

    // llama3 has a budget of its own, untouched today; the one over every model applies too and has less left.
    await page.locator('#model').selectOption('llama3');
    expect(await value('Budget left today').textContent())
      .to.include('64 of 100 tokens')
      .and.not.include('llama3’s own');
    await expectAccessible(page, 'chat page with your usage');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await browser.screenshot(page, `chat-usage-${colorScheme}`);
    }
    expect(errors).to.deep.equal([]);
    await page.close();

    const failing = await browser.page();
    await failing.page.route(USAGE_REQUESTS, (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ detail: 'Internal error.' }) }),
    );
    await web.open(failing.page, 'chat', keys.alice);
    await failing.page.locator('#own-usage-error', { hasText: 'Your usage could not be loaded: Internal error.' }).waitFor();
    expect(await failing.page.locator('#own-usage-figures').textContent()).to.equal('');
    await failing.page.close();
  });
});
