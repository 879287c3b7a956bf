import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { ChatHarness } from '../chat/chat-harness.js';
import { replyFor } from '../support/provider-stubs.js';
import { accessibilityViolations } from './browser.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';
/** An answer long enough to arrive in pieces; the stub pauses after its first words. */
const LONG_ANSWER = 'Router **r1** sits in ams, rack 4. It was installed in 2021, runs the 17.3 train, and all of its uplinks are up.';

/** Whether anything sticks out of the page sideways, and where the header's buttons end. */
async function layoutAt(page: Page): Promise<{ overflow: number; signOutRight: number; themeRight: number }> {
  return page.evaluate(`(() => {
    const right = (id) => document.getElementById(id).getBoundingClientRect().right;
    return { overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth, signOutRight: right('sign-out'), themeRight: right('theme-toggle') };
  })()`);
}

describe('chat page details in a real browser', function () {
  this.timeout(60_000);
  let web: WebHarness;
  let sut: ChatHarness;
  /** May chat, and nothing else: no ai_ops.view_llmmodel. */
  let chatKey: string;

  before(async function () {
    web = await startWebHarness(this);
    ({ sut } = web);
    await sut.model({ name: 'small', is_default: false, description: 'fast' });
    await sut.model({ name: 'large' });
    chatKey = await sut.token('engineer', ['ai_ops.chat']);
  });
  after(async () => {
    await web?.close();
  });

  it('offers the models to a user who may chat but not read model records, and sends the one picked', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', chatKey);
    await page.locator('#model option', { hasText: 'small' }).waitFor({ state: 'attached' });
    expect(await page.locator('#model option').allTextContents()).to.deep.equal(['large (openai, default)', 'small (openai)']);
    expect(await page.inputValue('#model')).to.equal('large');
    expect(await page.locator('#model').isDisabled()).to.equal(false);
    await page.selectOption('#model', 'small');
    await page.fill('#message', 'which model?');
    await page.press('#message', 'Enter');
    await page.locator('.message.assistant .body', { hasText: 'echo: which model?' }).waitFor();
    expect(sut.stub.requests.at(-1)!.body.model).to.equal('small');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('returns a stopped turn’s text to the composer, and a refused one too', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', chatKey);
    await page.click('#new-session');
    sut.stub.respondWith({ hold: true });
    const question = 'a long question\nover two lines';
    await page.fill('#message', question);
    await page.click('#send');
    await page.locator('.message.assistant .progress', { hasText: 'Thinking…' }).waitFor();
    expect(await page.inputValue('#message')).to.equal('');
    await page.click('#stop');
    await page.locator('.message.assistant .body', { hasText: 'Stopped.' }).waitFor();
    expect(await page.inputValue('#message')).to.equal(question);
    expect(await page.locator('#message:focus').count()).to.equal(1);
    sut.stub.release();
    await web.browser.screenshot(page, 'chat-stopped-returned');

    // A turn the service refuses (an unknown model) is not lost either.
    await page.evaluate(`document.getElementById('model').append(new Option('gone', 'gone', true, true))`);
    await page.fill('#message', 'to a model that is gone');
    await page.click('#send');
    await page.locator('.message.assistant .error', { hasText: "No LLM model is named 'gone'" }).waitFor();
    expect(await page.inputValue('#message')).to.equal('to a model that is gone');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('renames and deletes a session from the list, with a field error and a confirmation', async () => {
    for (const message of ['first question', 'second question']) {
      expect((await sut.call('POST', CHAT, { key: chatKey, body: { message } })).status).to.equal(200);
    }
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', chatKey);
    const first = page.locator('#session-list li', { hasText: 'first question' });
    await first.locator('button.session').click();
    await page.locator('#session-heading', { hasText: 'first question' }).waitFor();

    await first.getByRole('button', { name: 'Rename session: first question' }).click();
    const dialog = page.locator('dialog[open]');
    const title = dialog.getByLabel('Title', { exact: true });
    expect(await title.inputValue()).to.equal('first question');
    await title.fill('   ');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await title.and(page.locator('[aria-invalid="true"]:focus')).waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `rename form, ${colorScheme}`).to.deep.equal([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await title.fill('Empty sites in ams');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.locator('#session-list .session-title', { hasText: 'Empty sites in ams' }).waitFor();
    expect(await page.textContent('#session-heading')).to.equal('Empty sites in ams');
    await web.browser.screenshot(page, 'chat-session-renamed');

    const second = page.locator('#session-list li', { hasText: 'second question' });
    const secondId = await second.locator('button.session').getAttribute('data-session');
    await second.getByRole('button', { name: 'Delete session: second question' }).click();
    const confirmation = page.locator('dialog[open][role="alertdialog"]');
    await confirmation.getByRole('button', { name: 'Cancel' }).click();
    expect(await second.count()).to.equal(1);
    await second.getByRole('button', { name: 'Delete session: second question' }).click();
    await confirmation.getByRole('button', { name: 'Delete session' }).click();
    await second.waitFor({ state: 'detached' });
    expect((await sut.call('GET', `${CHAT}sessions/${secondId}/`, { key: chatKey })).status).to.equal(404);
    // The session on screen was not the one deleted.
    expect(await page.textContent('#session-heading')).to.equal('Empty sites in ams');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('shows the answer as the model writes it, before the turn completes, as Markdown', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', chatKey);
    await page.click('#new-session');
    sut.stub.respondWith({ ...replyFor('openai', LONG_ANSWER), pauseAfter: 6 });
    await page.fill('#message', 'tell me about r1');
    await page.press('#message', 'Enter');
    const streamed = page.locator('.message.assistant .step-text');
    await streamed.locator('strong', { hasText: 'r1' }).waitFor();
    expect(await streamed.textContent()).to.match(/^Router r1 sits in ams/);
    expect(await page.locator('.message.assistant .body').textContent()).to.equal('');
    expect(await page.locator('#stop').isVisible()).to.equal(true);
    await web.browser.screenshot(page, 'chat-streaming');
    sut.stub.release();
    await page.locator('.message.assistant .body', { hasText: 'all of its uplinks are up.' }).waitFor();
    expect(await page.locator('.message.assistant .step-text').count(), 'the streamed text gave way to the answer').to.equal(0);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('reattaches to the running turn after a reload mid-answer, and the turn is kept once', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', chatKey);
    await page.click('#new-session');
    sut.stub.respondWith({ ...replyFor('openai', LONG_ANSWER), pauseAfter: 4 });
    await page.fill('#message', 'r1, briefly');
    await page.press('#message', 'Enter');
    await page.locator('.message.assistant .step-text', { hasText: 'Router r1' }).waitFor();

    // A new session's first turn: nothing is stored before it ends.
    await page.reload();
    await page.locator('.message.user', { hasText: 'r1, briefly' }).waitFor();
    // The text written before the reload is back at once, and Stop still works on this turn.
    await page.locator('.message.assistant .step-text', { hasText: 'Router r1' }).waitFor();
    expect(await page.locator('#stop').isVisible()).to.equal(true);
    await web.browser.screenshot(page, 'chat-reattached');
    sut.stub.release();
    await page.locator('.message.assistant .body', { hasText: 'all of its uplinks are up.' }).waitFor();
    await page.locator('#send:not([disabled])').waitFor();

    await page.reload();
    await page.locator('.message.assistant .body', { hasText: 'all of its uplinks are up.' }).waitFor();
    expect(await page.locator('.message.user', { hasText: 'r1, briefly' }).count()).to.equal(1);
    expect(await page.locator('#stop').isHidden()).to.equal(true);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('stops a turn mid-answer: the partial text stays visible as stopped, the question returns to the composer', async () => {
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', chatKey);
    await page.click('#new-session');
    sut.stub.respondWith({ ...replyFor('openai', LONG_ANSWER), pauseAfter: 3 });
    await page.fill('#message', 'stop me halfway');
    await page.press('#message', 'Enter');
    await page.locator('.message.assistant .step-text', { hasText: 'Router' }).waitFor();
    await page.click('#stop');
    await page.locator('.message.assistant .body', { hasText: 'Stopped.' }).waitFor();
    expect(await page.inputValue('#message')).to.equal('stop me halfway');
    sut.stub.release();
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('fits a 360 px wide screen: nothing scrolls sideways and Sign out stays on screen (chat and admin)', async () => {
    const { page, errors } = await web.browser.page();
    await page.setViewportSize({ width: 360, height: 740 });
    await web.open(page, 'chat', chatKey);
    await page.locator('#model option', { hasText: 'large' }).waitFor({ state: 'attached' });
    const chat = await layoutAt(page);
    expect(chat.overflow, 'chat scrolls sideways').to.equal(0);
    expect(chat.signOutRight).to.be.at.most(360);
    expect(chat.themeRight).to.be.at.most(360);
    await web.browser.screenshot(page, 'chat-360');

    expect(errors).to.deep.equal([]);
    await page.close();

    // The admin page in a tab of its own: the chat tab's sign-in is kept in that tab only.
    const admin = await web.browser.page();
    await admin.page.setViewportSize({ width: 360, height: 740 });
    await web.open(admin.page, 'admin', web.adminKey, '?refresh=300');
    await admin.page.locator('#models tbody tr', { hasText: 'large' }).waitFor();
    const adminLayout = await layoutAt(admin.page);
    expect(adminLayout.overflow, 'admin scrolls sideways').to.equal(0);
    expect(adminLayout.signOutRight).to.be.at.most(360);
    await web.browser.screenshot(admin.page, 'admin-360');
    await admin.page.click('#add-models');
    expect((await layoutAt(admin.page)).overflow, 'the model form scrolls sideways').to.equal(0);
    await web.browser.screenshot(admin.page, 'admin-360-form');
    expect(admin.errors).to.deep.equal([]);
    await admin.page.close();
  });
});
