import { expect } from 'chai';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import type { ChatHarness } from '../chat/chat-harness.js';
import { replyFor } from '../support/provider-stubs.js';
import type { Page } from 'playwright-core';
import { accessibilityViolations } from './browser.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';

describe('approving and declining the agent’s writes in the chat page (real browser)', function () {
  this.timeout(90_000);
  let web: WebHarness;
  let sut: ChatHarness;
  /** May chat and create LLM models. */
  let writerKey: string;

  before(async function () {
    web = await startWebHarness(this, { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3' });
    ({ sut } = web);
    await sut.model({ name: 'agent' });
    writerKey = await sut.token('writer', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
  });
  after(async () => {
    await web?.close();
  });

  /** The model proposes creating the LLM model `name`, then answers `answer` (if the turn gets that far). */
  function proposeCreate(name: string, answer?: string): void {
    sut.stub.respondWith(
      replyFor('openai', '', [
        {
          id: 'call_1',
          name: 'platform_dynamic_api_request',
          arguments: { method: 'POST', path: MODELS, body: { name, provider: 'ollama' } },
        },
      ]),
      ...(answer === undefined ? [] : [replyFor('openai', answer)]),
    );
  }

  const count = async (name: string) => (await sut.records.llmModels.list({ limit: 10, offset: 0, filters: { name } })).count;

  /** An LLM model that is not the default (the agent's stays so). */
  const model = (name: string) =>
    sut.records.llmModels.create(
      {
        name,
        description: '',
        provider: 'ollama',
        model_secret_key: '',
        hosted_endpoint: '',
        api_version: '',
        is_default: false,
        temperature: 0.2,
        model_config: {},
        system_prompt: '',
      },
      OPERATOR,
    );

  /** The model calls the API request tool with each of `calls` in turn (one per step), then answers `answer`. */
  function proposeEach(calls: Array<Record<string, unknown>>, answer: string): void {
    sut.stub.respondWith(
      ...calls.map((args, index) =>
        replyFor('openai', '', [{ id: `call_${index + 1}`, name: 'platform_dynamic_api_request', arguments: args }]),
      ),
      replyFor('openai', answer),
    );
  }

  /** The rows of the plan's tables in the approval (header cells, then data cells), as text. */
  const rows = (approval: ReturnType<Page['locator']>) =>
    approval
      .locator('.plan-table tbody tr')
      .evaluateAll((found) => found.map((row) => [...row.children].map((cell) => cell.textContent ?? '')));

  it('shows a write’s plan as a table of field, before and after, with what was fixed on the way; axe-clean in both themes', async () => {
    const tuned = await model('tuned');
    const tuner = await sut.token('tuner', ['ai_ops.chat', 'ai_ops.view_llmmodel', 'ai_ops.change_llmmodel']);
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', tuner);
    const path = `${MODELS}${tuned.id}/`;
    // First a value the schema refuses: the model hears why and corrects it; the user sees only the corrected call.
    proposeEach(
      [
        { method: 'PATCH', path, body: { temperature: 'hot' } },
        { method: 'PATCH', path, body: { temperature: 0.7, description: 'tuned up' } },
      ],
      'Tuned.',
    );
    await page.fill('#message', 'make tuned warmer');
    await page.press('#message', 'Enter');
    const approval = page.locator('.message.assistant .approval');
    await approval.waitFor();
    expect(await approval.locator('.plan-summary').textContent()).to.equal('Update LLM model tuned');
    expect(await approval.locator('.plan-count').textContent()).to.equal('1 object would be changed');
    expect(await approval.locator('.plan-table caption').textContent()).to.equal('tuned');
    expect(await approval.locator('.plan-table thead th').allTextContents()).to.deep.equal(['Field', 'Before', 'After']);
    expect(await rows(approval)).to.deep.equal([
      ['temperature', '0.2', '0.7'],
      ['description', '(blank)', 'tuned up'],
    ]);
    expect(await approval.locator('.plan-fixed li').allTextContents()).to.deep.equal(['temperature: must be a number']);
    // The request itself is one click away.
    expect(await approval.locator('.plan-request .approval-request').textContent()).to.equal(`PATCH ${path}`);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `plan, ${colorScheme}`).to.deep.equal([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await web.browser.screenshot(page, 'chat-plan');
    await approval.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.message.assistant .body', { hasText: 'Tuned.' }).waitFor();
    expect(await sut.records.llmModels.get(tuned.id)).to.include({ temperature: 0.7, description: 'tuned up' });
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('marks what a delete removes, and asks again, saying why, when the object changed before the approval', async () => {
    const doomed = await model('doomed');
    // A model whose destination a superuser set is a superuser's to delete.
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', web.adminKey);
    proposeEach([{ method: 'DELETE', path: `${MODELS}${doomed.id}/` }], 'Deleted.');
    await page.fill('#message', 'remove doomed');
    await page.press('#message', 'Enter');
    const approval = page.locator('.message.assistant .approval:not([data-decided])');
    await approval.waitFor();
    expect(await approval.locator('.plan-summary').textContent()).to.equal('Delete LLM model doomed');
    expect(await approval.locator('.plan-count').textContent()).to.equal('1 object would be deleted');
    expect(await approval.locator('.plan-deletes caption').textContent()).to.equal('To be deleted (1)');
    expect(await rows(approval)).to.deep.equal([['doomed', 'would be deleted']]);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `delete plan, ${colorScheme}`).to.deep.equal([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Someone changes it while the user reads the plan: approving writes nothing, and the call is asked again.
    await sut.records.llmModels.update(doomed.id, { description: 'still needed?' }, 'patch', OPERATOR);
    await approval.getByRole('button', { name: 'Approve' }).click();
    const again = page.locator('.message.assistant .approval:not([data-decided])', { has: page.locator('.plan-replanned') });
    await again.waitFor();
    expect(await again.locator('.plan-replanned').textContent()).to.match(
      /^Asked again, nothing was written: doomed was changed since the plan/,
    );
    expect(await count('doomed')).to.equal(1);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `asked again, ${colorScheme}`).to.deep.equal([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await again.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.message.assistant .body', { hasText: 'Deleted.' }).waitFor();
    expect(await count('doomed')).to.equal(0);
    expect(sut.stub.requests.at(-1)!.body.messages.at(-1).content).to.match(/^\(asked again because doomed was changed since the plan/);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('shows the proposed request readably and approves it by keyboard, with a note', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', writerKey);
    proposeCreate('from-the-browser', 'Created **from-the-browser**.');
    await page.fill('#message', 'add a model called from-the-browser');
    await page.press('#message', 'Enter');

    const approval = page.locator('.message.assistant .approval');
    await approval.waitFor();
    expect(await approval.locator('.approval-request').textContent()).to.equal(`POST ${MODELS}`);
    expect(JSON.parse((await approval.locator('.approval-json').textContent()) ?? '')).to.deep.equal({
      name: 'from-the-browser',
      provider: 'ollama',
    });
    expect(await page.locator('.message.assistant .progress').textContent()).to.equal('Waiting for your approval…');
    expect(await count('from-the-browser')).to.equal(0);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `approval, ${colorScheme}`).to.deep.equal([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await web.browser.screenshot(page, 'chat-approval');

    // By keyboard: the note, then Tab to Approve and Enter.
    await approval.getByLabel('Note').focus();
    await page.keyboard.type('as asked');
    await page.keyboard.press('Tab');
    await approval.locator('button.approve:focus').waitFor();
    await page.keyboard.press('Enter');
    await approval.locator('.approval-outcome', { hasText: 'Approved: as asked' }).waitFor();
    await page.locator('.message.assistant .body strong', { hasText: 'from-the-browser' }).waitFor();
    expect(await page.locator('.message.assistant .tool-call .tool-state').textContent()).to.equal('done');
    expect(await count('from-the-browser')).to.equal(1);
    expect(errors).to.deep.equal([]);

    // The stored session shows the decision with the call.
    await page.reload();
    await page.locator('.message.assistant .tool-decision', { hasText: 'Approved: as asked' }).waitFor({ state: 'attached' });
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('lets a turn that waits for approval be decided from another tab: listed as waiting, or opened on its session', async () => {
    const { page } = await web.browser.page();
    await web.open(page, 'chat', writerKey);
    await page.click('#new-session');
    proposeCreate('from-another-tab', 'Created **from-another-tab**.');
    await page.fill('#message', 'add a model called from-another-tab');
    await page.press('#message', 'Enter');
    await page.locator('.message.assistant .approval').waitFor();
    const sessionId = new URL(page.url()).hash.slice(1);
    expect(sessionId).to.not.equal('');

    // A tab of its own (nothing of the first one's storage): the session is listed as waiting.
    const { page: listing } = await web.browser.page();
    await web.open(listing, 'chat', writerKey);
    const waitingRow = listing.locator(`.session.waiting[data-session="${sessionId}"]`);
    await waitingRow.waitFor();
    expect(await waitingRow.locator('.session-meta').textContent()).to.equal('first turn · waiting for your approval');
    await waitingRow.click();
    await listing.locator('.message.assistant .approval').waitFor();
    await listing.close();

    // Another, opened from a bookmark of the session, decides it.
    const { page: other, errors } = await web.browser.page();
    await web.open(other, 'chat', writerKey, `#${sessionId}`);
    const approval = other.locator('.message.assistant .approval');
    await approval.waitFor();
    expect(await other.locator('.message.user').textContent()).to.equal('add a model called from-another-tab');
    await approval.locator('button.approve').click();
    await other.locator('.message.assistant .body strong', { hasText: 'from-another-tab' }).waitFor();
    expect(await count('from-another-tab')).to.equal(1);
    expect(errors).to.deep.equal([]);
    await other.close();
    await page.close();
  });

  it('takes the buttons away from a proposed request whose turn was stopped: it shows as not run', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', writerKey);
    await page.click('#new-session');
    proposeCreate('stopped-first');
    await page.fill('#message', 'add a model called stopped-first');
    await page.press('#message', 'Enter');
    const approval = page.locator('.message.assistant .approval');
    await approval.waitFor();
    await page.click('#stop');
    await approval.locator('.approval-outcome', { hasText: 'The turn was stopped before this was decided; it was not run.' }).waitFor();
    expect(await approval.getByRole('button').count()).to.equal(0);
    expect(await page.locator('.message.assistant .tool-call .tool-state').textContent()).to.equal('not run');
    expect(await count('stopped-first')).to.equal(0);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('declines a proposed request: nothing is written and the call shows as declined', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', writerKey);
    await page.click('#new-session');
    proposeCreate('never-made', 'Understood, I did not create it.');
    await page.fill('#message', 'add a model called never-made');
    await page.press('#message', 'Enter');
    const approval = page.locator('.message.assistant .approval');
    await approval.waitFor();
    await approval.getByLabel('Note').fill('wrong name');
    await approval.getByRole('button', { name: 'Decline' }).click();
    await page.locator('.message.assistant .body', { hasText: 'Understood, I did not create it.' }).waitFor();
    expect(await approval.locator('.approval-outcome').textContent()).to.equal('Declined: wrong name');
    expect(await page.locator('.message.assistant .tool-call .tool-state').textContent()).to.equal('declined');
    expect(sut.stub.requests.at(-1)!.body.messages.at(-1)).to.include({ role: 'tool', content: 'declined by the user: wrong name' });
    expect(await count('never-made')).to.equal(0);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('at 360 px wide, shows a waiting approval within the first screen, above a long session list, with whole field names; axe-clean', async () => {
    const phone = await sut.token('phone', ['ai_ops.chat', 'ai_ops.view_llmmodel', 'ai_ops.change_llmmodel']);
    // A user with many sessions: each is one finished turn.
    for (let session = 0; session < 10; session++) {
      sut.stub.respondWith(replyFor('openai', `answer ${session}`));
      const answered = await sut.call('POST', '/plugins/ai-ops/api/chat/', { key: phone, body: { message: `question ${session}` } });
      expect(answered.status, JSON.stringify(answered.body)).to.equal(200);
    }
    const narrow = await model('narrow');
    const { page, errors } = await web.browser.page();
    await page.setViewportSize({ width: 360, height: 800 });
    await web.open(page, 'chat', phone);
    await page.locator('.session').nth(9).waitFor({ state: 'attached' });
    await page.click('#new-session');
    proposeEach(
      [
        {
          method: 'PATCH',
          path: `${MODELS}${narrow.id}/`,
          body: { hosted_endpoint: 'http://127.0.0.1:9/v1', temperature: 0.9, description: 'narrow' },
        },
      ],
      'Done.',
    );
    await page.fill('#message', 'point narrow elsewhere');
    await page.press('#message', 'Enter');
    const approval = page.locator('.message.assistant .approval');
    await approval.waitFor();
    await page.evaluate('window.scrollTo(0, 0)');
    const top = await page.evaluate<number>(
      "document.querySelector('.message.assistant .approval').getBoundingClientRect().top + window.scrollY",
    );
    expect(top, 'the approval card starts within the first 800 px of the page').to.be.below(800);
    expect(await page.evaluate('document.documentElement.scrollWidth'), 'nothing wider than the screen').to.be.at.most(360);
    // No field name (nor column header) breaks inside a word: each word of it (a name wraps only
    // after an underscore) has line boxes at a single height.
    const lines = await page.evaluate<Array<[string, number]>>(
      "[...document.querySelectorAll('.message.assistant .approval .plan-table th')].map((cell) => [cell.textContent, " +
        'Math.max(...[...cell.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => { ' +
        'const range = document.createRange(); range.selectNodeContents(node); ' +
        'return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size; }))])',
    );
    expect(lines).to.deep.equal([
      ['Field', 1],
      ['Before', 1],
      ['After', 1],
      ['hosted_endpoint', 1],
      ['temperature', 1],
      ['description', 1],
    ]);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `360 px, ${colorScheme}`).to.deep.equal([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await web.browser.screenshot(page, 'chat-approval-360px');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});

describe('a proposed write whose wait for a decision runs out, in the chat page (real browser)', function () {
  this.timeout(60_000);
  let web: WebHarness;

  before(async function () {
    web = await startWebHarness(this, { AGENT_BUILTIN_TOOLS: 'true', AGENT_MAX_STEPS: '3', APPROVAL_TIMEOUT_S: '3' });
    await web.sut.model({ name: 'agent' });
  });
  after(async () => {
    await web?.close();
  });

  it('takes the buttons away when the wait runs out, with no worker to say so: the service would refuse a decision', async () => {
    const key = await web.sut.token('late', ['ai_ops.chat', 'ai_ops.add_llmmodel']);
    web.sut.stub.respondWith(
      replyFor('openai', '', [
        {
          id: 'call_1',
          name: 'platform_dynamic_api_request',
          arguments: { method: 'POST', path: MODELS, body: { name: 'too-late', provider: 'ollama' } },
        },
      ]),
    );
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', key);
    await page.click('#new-session');
    await page.fill('#message', 'add a model called too-late');
    await page.press('#message', 'Enter');
    const approval = page.locator('.message.assistant .approval');
    await approval.getByRole('button', { name: 'Approve' }).waitFor();
    // No worker goes on with the turn: what the page shows at the expiry is its own doing.
    await web.sut.workers?.close();
    await approval
      .locator('.approval-outcome', { hasText: 'No decision came in time: it counts as declined.' })
      .waitFor({ timeout: 10_000 });
    expect(await approval.getByRole('button').count()).to.equal(0);
    expect(await page.locator('.message.assistant .progress').textContent()).to.equal('Waiting for a worker…');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});
