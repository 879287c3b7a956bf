import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { ChatHarness } from '../chat/chat-harness.js';
import { turnWithOneCall } from '../chat/support/approved-call.js';
import { startPlatformStub, type PlatformStub } from '../chat/support/platform-stub.js';
import { accessibilityViolations } from './browser.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

const TOKEN_PATH = '/api/plugins/ai-ops/platform-token/';
const SERVICE_TOKEN = 'service-token-0123456789';
const PERSONAL_TOKEN = 'personal-token-from-the-browser-4242';

/** Everything the page could give away: its markup, the values of its fields, and both storages. */
function pageContents(page: Page): Promise<string> {
  return page.evaluate<string>(
    "[document.documentElement.outerHTML, ...[...document.querySelectorAll('input, textarea')].map((field) => field.value), JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })].join('\\n')",
  );
}

describe('the personal platform token on the chat page (real browser)', function () {
  this.timeout(90_000);

  describe('with PLATFORM_TOKEN_KEY set', () => {
    let web: WebHarness;
    let sut: ChatHarness;
    let platform: PlatformStub;

    before(async function () {
      platform = await startPlatformStub();
      web = await startWebHarness(this, {
        AGENT_BUILTIN_TOOLS: 'true',
        AGENT_MAX_STEPS: '3',
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: SERVICE_TOKEN,
        PLATFORM_TOKEN_KEY: 'a-key-of-at-least-thirty-two-characters',
      });
      ({ sut } = web);
      await sut.model({ name: 'agent' });
    });
    after(async () => {
      await web?.close();
      await platform?.close();
    });

    it('stores a token by keyboard, shows since when, lets the agent call the platform with it, and forgets it', async () => {
      const key = await sut.token('lena');
      const { page, errors, violations, requests } = await web.browser.page();
      const consoleLines: string[] = [];
      page.on('console', (message) => consoleLines.push(message.text()));
      await web.open(page, 'chat', key);

      const control = page.locator('#platform-token[data-state="none"]:not([hidden])');
      await control.waitFor();
      expect(await page.locator('#platform-token').getAttribute('role')).to.equal('group');
      expect(await page.locator('#platform-token-label').textContent()).to.equal('Platform token:');
      expect(await page.locator('#platform-token-state').textContent()).to.equal('none stored');
      expect(await page.locator('#platform-token-forget').isHidden()).to.equal(true);

      // Opened by keyboard: the dialog is named by its heading and the token field has focus.
      await page.getByRole('button', { name: 'Store token' }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Store your platform token' });
      await dialog.waitFor();
      const field = dialog.getByLabel('Platform token');
      expect(await field.getAttribute('type')).to.equal('password');
      await dialog.locator('input[type="password"]:focus').waitFor();

      // Nothing typed: the API's message is shown next to the field, which is marked invalid.
      await page.keyboard.press('Enter');
      const fieldError = dialog.locator('.field-error:not([hidden])');
      await fieldError.waitFor();
      expect(await fieldError.textContent()).to.equal('This field may not be blank.');
      expect(await field.getAttribute('aria-invalid')).to.equal('true');
      expect((await sut.call('GET', TOKEN_PATH, { key })).body).to.deep.equal({ enabled: true, configured: false, updated: null });
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        expect(await accessibilityViolations(page), `token dialog, ${colorScheme}`).to.deep.equal([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });

      await page.keyboard.type(PERSONAL_TOKEN);
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await page.locator('#platform-token[data-state="stored"]').waitFor();
      expect(await page.locator('#platform-token-state').textContent()).to.match(/^stored since \S/);
      expect(await page.locator('#platform-token-state time').getAttribute('datetime')).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(await page.locator('#platform-token-store').textContent()).to.equal('Replace token');
      expect(await page.locator('#platform-token-forget').isVisible()).to.equal(true);
      // Focus is back on the button that opened the dialog.
      await page.locator('#platform-token-store:focus').waitFor();
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        expect(await accessibilityViolations(page), `token stored, ${colorScheme}`).to.deep.equal([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await web.browser.screenshot(page, 'chat-platform-token');

      // The API has it, and the agent calls the platform with it for this user.
      const state = await sut.call('GET', TOKEN_PATH, { key });
      expect(state.body.configured).to.equal(true);
      expect(await page.locator('#platform-token-state time').getAttribute('datetime')).to.equal(state.body.updated);
      await turnWithOneCall(sut, key, { method: 'GET', path: '/api/dcim/devices/' });
      expect(platform.calls.at(-1)).to.deep.equal({ method: 'GET', path: '/api/dcim/devices/', authorization: `Token ${PERSONAL_TOKEN}` });

      // Replacing opens an empty field; Escape leaves everything as it was.
      await page.keyboard.press('Enter');
      const replace = page.getByRole('dialog', { name: 'Replace your platform token' });
      await replace.waitFor();
      expect(await replace.getByLabel('Platform token').inputValue()).to.equal('');
      await page.keyboard.press('Escape');
      await replace.waitFor({ state: 'detached' });
      expect(await page.locator('#platform-token').getAttribute('data-state')).to.equal('stored');

      // The token is nowhere in the page, its storage, the URLs it asked for or the console.
      expect(await pageContents(page)).to.not.contain(PERSONAL_TOKEN);
      expect(requests.filter((url) => url.includes(PERSONAL_TOKEN))).to.deep.equal([]);
      expect(consoleLines.filter((line) => line.includes(PERSONAL_TOKEN))).to.deep.equal([]);

      // Forget: asked first (Cancel has focus), then confirmed by keyboard.
      await page.getByRole('button', { name: 'Forget token' }).focus();
      await page.keyboard.press('Enter');
      const confirm = page.getByRole('alertdialog', { name: 'Forget your platform token?' });
      await confirm.waitFor();
      expect(await confirm.locator('button:focus').textContent()).to.equal('Cancel');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.locator('#platform-token[data-state="none"]').waitFor();
      expect(await page.locator('#platform-token-state').textContent()).to.equal('none stored');
      expect(await page.locator('#platform-token-forget').isHidden()).to.equal(true);
      await page.locator('#platform-token-store:focus').waitFor();
      expect((await sut.call('GET', TOKEN_PATH, { key })).body).to.deep.equal({ enabled: true, configured: false, updated: null });

      expect(await pageContents(page)).to.not.contain(PERSONAL_TOKEN);
      expect(violations).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      await page.close();
    });

    it('shows a read-only token whether one is stored, without offering to change it', async () => {
      const { key } = await sut.records.tokens.create({
        username: 'lena',
        superuser: false,
        permissions: ['ai_ops.chat'],
        writeEnabled: false,
        expires: null,
      });
      const { page, errors } = await web.browser.page();
      await web.open(page, 'chat', key);
      await page.locator('#platform-token[data-state="none"]:not([hidden])').waitFor();
      expect(await page.locator('#platform-token-store').isHidden()).to.equal(true);
      expect(await page.locator('#platform-token-forget').isHidden()).to.equal(true);
      expect(errors).to.deep.equal([]);
      await page.close();
    });
  });

  describe('without PLATFORM_TOKEN_KEY', () => {
    let web: WebHarness;

    before(async function () {
      web = await startWebHarness(this);
      await web.sut.model({ name: 'agent' });
    });
    after(async () => {
      await web?.close();
    });

    it('hides the control: the service keeps no personal tokens, which is no error (no failed request on the page, favicon included)', async () => {
      const key = await web.sut.token('mira');
      const state = await web.sut.call('GET', TOKEN_PATH, { key });
      expect(state.status).to.equal(200);
      expect(state.body).to.deep.equal({ enabled: false, configured: false, updated: null });
      expect((await web.sut.call('PUT', TOKEN_PATH, { key, body: { token: 'abc' } })).status).to.equal(409);
      const { page, errors } = await web.browser.page();
      const failed: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      await web.open(page, 'chat', key);
      await page.locator('#platform-token[data-state="unavailable"]').waitFor({ state: 'attached' });
      await page.waitForLoadState('networkidle');
      expect(failed).to.deep.equal([]);
      expect(await page.locator('#platform-token').isHidden()).to.equal(true);
      expect(await page.locator('#chat-error').isHidden()).to.equal(true);
      expect(errors).to.deep.equal([]);
      await page.close();
    });
  });
});
