import { expect } from 'chai';
import type { ChatHarness } from '../chat/chat-harness.js';
import { replyFor } from '../support/provider-stubs.js';
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
});
