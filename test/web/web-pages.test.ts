import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { CONTENT_SECURITY_POLICY } from '../../src/api/web.router.js';
import type { ChatHarness } from '../chat/chat-harness.js';
import type { TestRemote } from '../knowledge/support/git-remote.js';
import { startHttpFixture, type HttpFixture } from '../support/mcp-fixtures/http-fixture.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { replyFor } from '../support/provider-stubs.js';
import { accessibilityViolations, type TestBrowser } from './browser.js';
import { signIn, startWebHarness, type WebHarness } from './web-harness.js';
import { until } from '../support/until.js';

/** Markup a model might be tricked into answering: none of it may run, load or submit anything. */
const XSS_ANSWER = [
  'Here is what I found.',
  '<img src="x" onerror="window.__xss = \'img\'">',
  '<script>window.__xss = "script"</script>',
  '<svg><script>window.__xss = "svg"</script><a xlink:href="javascript:window.__xss=\'svg-link\'">svg link</a></svg>',
  '<iframe srcdoc="<script>parent.__xss = \'iframe\'</script>"></iframe>',
  "[a markdown link](javascript:window.__xss='markdown-link')",
  '<a href="javascript:window.__xss=\'anchor\'">an anchor</a>',
  '<div style="background:url(http://127.0.0.1:9/leak)" onclick="window.__xss=\'div\'">styled</div>',
  '![tracker](http://127.0.0.1:9/pixel.png)',
  '<form action="http://127.0.0.1:9/"><input name="q"><button>Send</button></form>',
  '<details open ontoggle="window.__xss=\'toggle\'"><summary>more</summary>x</details>',
  '| device | site |\n|---|---|\n| <b onmouseover="window.__xss=\'table\'">r1</b> | ams |',
].join('\n\n');

/** What a payload that ran would have set (functions run in the page are written as strings: this program has no DOM types). */
const xssFlag = (page: Page) => page.evaluate<string | null>('window.__xss ?? null');

describe('web pages in a real browser', function () {
  this.timeout(60_000);
  let web: WebHarness;
  let sut: ChatHarness;
  let browser: TestBrowser;
  let remote: TestRemote;
  let inventory: HttpFixture;
  let inventoryId: string;
  let chatKey: string;
  let adminKey: string;

  before(async function () {
    web = await startWebHarness(this);
    ({ sut, browser, remote, adminKey } = web);
    inventory = await startHttpFixture({ label: 'inventory' });
    inventoryId = (await sut.records.mcpServers.create({ name: 'inventory', status: 'Healthy', url: inventory.url } as never, OPERATOR)).id;
    await sut.model({ name: 'stub-gpt' });
    chatKey = await sut.token('operator', ['ai_ops.chat', 'ai_ops.view_llmmodel']);
  });
  after(async () => {
    await web?.close();
    await inventory?.close();
  });

  it('serves the pages with a strict Content-Security-Policy and their hashed assets with long caching', async () => {
    const page = await fetch(`${sut.baseUrl}/plugins/ai-ops/chat/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.equal(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
    const html = await page.text();
    expect(html).to.not.match(/https?:\/\//);
    expect(html).to.not.match(/<script>|<script [^>]*>[^<]/);
    const assets = [...html.matchAll(/(?:src|href)="(\/plugins\/ai-ops\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets).to.have.length(2);
    for (const asset of assets) {
      const response = await fetch(sut.baseUrl + asset);
      expect(response.status, asset).to.equal(200);
      expect(response.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(response.headers.get('content-type')).to.match(asset.endsWith('.js') ? /javascript/ : /text\/css/);
    }
    for (const bad of ['..%2Fchat.html', 'chat.html', 'missing-ABCDEFGH.js']) {
      const response = await fetch(`${sut.baseUrl}/plugins/ai-ops/assets/${bad}`);
      expect(response.status, bad).to.equal(404);
      expect(await response.json()).to.have.property('detail');
    }
    const undecodable = await fetch(`${sut.baseUrl}/plugins/ai-ops/assets/%ZZ.js`);
    expect(undecodable.status).to.equal(400);
    expect(undecodable.headers.get('connection')).to.equal('close');
    expect((await fetch(`${sut.baseUrl}/plugins/ai-ops/admin/`)).status).to.equal(200);
  });

  it('browses the API documentation with a token: operations from the document, Try it out acts with that token', async () => {
    // Clients that do not ask for a page still get the document itself.
    const document = await fetch(`${sut.baseUrl}/api/docs/`, { headers: { authorization: `Token ${chatKey}` } });
    expect(document.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await document.json()) as { openapi: string }).openapi).to.match(/^3\./);

    const { page, errors, violations, requests } = await browser.page();
    await page.goto(`${sut.baseUrl}/api/docs/`);
    await signIn(page, chatKey);
    const operation = page.locator('#operations-chat-chat_models_list');
    await operation.click();
    await page.getByRole('button', { name: 'Try it out' }).click();
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();
    expect(await page.locator('.live-responses-table').textContent()).to.include('stub-gpt');
    await browser.screenshot(page, 'api-docs');
    // The title's version badges are readable: white on a dark enough grey and green.
    await page.locator('.swagger-ui .info .title small').first().waitFor();
    expect(await accessibilityViolations(page, { within: '.swagger-ui .info', rules: ['color-contrast'] })).to.deep.equal([]);
    expect(violations).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    expect(requests.filter((url) => !url.startsWith(sut.baseUrl))).to.deep.equal([]);
    await page.close();
  });

  it('refuses a bad token and a token without the chat permission, in plain words', async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/chat/`);
    await page.fill('#token', 'not-a-real-token');
    await page.press('#token', 'Enter');
    const refused = await page.locator('#sign-in-error:not([hidden])').textContent();
    expect(refused).to.match(/token/i);
    expect(await page.locator('#content').isHidden()).to.equal(true);

    await page.fill('#token', await sut.token('viewer', ['ai_ops.view_llmmodel']));
    await page.press('#token', 'Enter');
    await page.locator('#sign-in-error', { hasText: 'ai_ops.chat' }).waitFor();
    expect(await page.locator('#sign-in-error').textContent()).to.match(/permission/i);
    expect(await page.evaluate<number>('sessionStorage.length')).to.equal(0);
    await browser.screenshot(page, 'sign-in-refused');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('signs in, streams a tool call with its arguments and result, then shows the answer as Markdown', async () => {
    const { page, errors, violations, requests } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/chat/`);
    await signIn(page, chatKey);
    await page.locator('#model option', { hasText: 'stub-gpt' }).waitFor({ state: 'attached' });
    expect(await page.inputValue('#model')).to.equal('stub-gpt');

    // The model asks for a tool, then its final answer is held until the tool call has been seen.
    sut.stub.respondWith(replyFor('openai', '', [{ id: 'call_1', name: 'lookup_device', arguments: { name: 'r1' } }]), { hold: true });
    await page.locator('#message:focus').waitFor();
    await page.keyboard.type('Where is **r1**?');
    await page.keyboard.press('Enter');

    const call = page.locator('.tool-call[data-state="ok"]');
    await call.waitFor();
    expect(await call.locator('summary').textContent()).to.match(/lookup_device\s+done/);
    expect(await page.locator('.message.assistant .progress').textContent()).to.equal('Thinking…');
    expect(await page.locator('.message.assistant .body').textContent()).to.equal('');
    await call.locator('summary').click();
    expect(JSON.parse((await call.locator('.tool-arguments').textContent()) ?? '')).to.deep.equal({ name: 'r1' });
    expect(await call.locator('.tool-result').textContent()).to.equal('inventory: device r1 is in ams, rack 4');
    await browser.screenshot(page, 'chat-tool-call');

    sut.stub.release();
    // The stub echoes the question: its Markdown comes back rendered.
    await page.locator('.message.assistant .body strong', { hasText: 'r1' }).waitFor();
    expect((await page.locator('.message.assistant .body').textContent())?.trim()).to.equal('echo: Where is r1?');
    await page.locator('#send:not([disabled])').waitFor();
    await page.locator('#session-list button[aria-current="true"]', { hasText: 'Where is **r1**?' }).waitFor();
    await browser.screenshot(page, 'chat-answer');

    // The session reloads from the server, tool call included.
    await page.reload();
    await page.locator('.message.assistant .body strong', { hasText: 'r1' }).waitFor();
    expect(await page.locator('.tool-call[data-state="ok"] summary').textContent()).to.match(/lookup_device/);

    expect(errors).to.deep.equal([]);
    expect(violations).to.deep.equal([]);
    const origin = new URL(sut.baseUrl).origin;
    expect(requests.filter((url) => new URL(url).origin !== origin)).to.deep.equal([]);
    await page.close();
  });

  it('stops a running turn from the Stop button and from Escape; nothing is kept and the next turn works', async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/chat/`);
    await signIn(page, chatKey);
    await page.click('#new-session');
    for (const how of ['button', 'escape'] as const) {
      sut.stub.respondWith({ hold: true });
      await page.fill('#message', `a question to stop (${how})`);
      await page.press('#message', 'Enter');
      const stop = page.locator('#stop:not([disabled])');
      await stop.waitFor();
      await page.locator('.message.assistant .progress', { hasText: 'Thinking…' }).waitFor();
      if (how === 'button') await stop.click();
      else await page.press('#message', 'Escape');
      await page
        .locator('.message.assistant .body', { hasText: 'Stopped.' })
        .nth(how === 'button' ? 0 : 1)
        .waitFor();
      await page.locator('#send:not([disabled])').waitFor();
      expect(await page.locator('#stop').isHidden()).to.equal(true);
      sut.stub.release();
    }
    await browser.screenshot(page, 'chat-stopped');
    await page.fill('#message', 'and now?');
    await page.press('#message', 'Enter');
    await page.locator('.message.assistant .body', { hasText: 'echo: and now?' }).waitFor();
    expect(await page.locator('.message.assistant .error').count()).to.equal(0);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('renders an answer and a tool result carrying XSS payloads inert', async () => {
    const { page, errors, violations } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/chat/`);
    await signIn(page, chatKey);
    await page.click('#new-session');
    sut.stub.respondWith(
      replyFor('openai', '', [{ id: 'call_x', name: 'lookup_device', arguments: { name: '<img src=x onerror="window.__xss=\'tool\'">' } }]),
      replyFor('openai', XSS_ANSWER),
    );
    await page.fill('#message', '<img src=x onerror="window.__xss=\'user\'"> what is in ams?');
    await page.click('#send');
    const answer = page.locator('.message.assistant .body');
    await answer.locator('text=Here is what I found.').waitFor();
    // Polled with page.evaluate: waitForFunction evaluates a string predicate with eval inside the
    // page, which the page's own policy (no 'unsafe-eval') rightly refuses.
    await until(
      () => page.evaluate<boolean>("[...document.querySelectorAll('#log img')].every((image) => image.complete)"),
      10_000,
      'the images in the log to finish loading',
    );

    // Try every way the payloads could have fired.
    for (const link of await answer.locator('a').all()) if (await link.isVisible()) await link.click({ modifiers: ['Control'] });
    await answer.locator('text=styled').click();
    await answer.locator('b', { hasText: 'r1' }).hover();
    expect(await xssFlag(page)).to.equal(null);

    const log = page.locator('#log');
    expect(
      await log.locator('script, iframe, form, input, button, [onerror], [onclick], [onmouseover], [ontoggle], [style]').count(),
    ).to.equal(0);
    expect(await log.locator('a[href^="javascript:" i]').count()).to.equal(0);
    expect(await page.locator('.message.user .body').last().textContent()).to.equal(
      '<img src=x onerror="window.__xss=\'user\'"> what is in ams?',
    );
    expect(await page.locator('.tool-result').last().textContent()).to.include('<img src=x onerror=');
    expect(await answer.locator('table td b', { hasText: 'r1' }).count()).to.equal(1);
    // The policy refused the tracking image, and the inline handlers and styles chromium met while
    // DOMPurify parsed the answer in an inert document (a second layer: none of them reached the page).
    expect(violations.some((text) => /img-src/.test(text))).to.equal(true);
    expect(violations.filter((text) => !/img-src|inline event handler|inline style/.test(text))).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await browser.screenshot(page, 'chat-xss-inert');
    await page.close();
  });

  it('follows the system theme and switches with the toggle, which says what it will do', async () => {
    const { page } = await browser.page();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/chat/`);
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(await background()).to.equal('rgb(20, 22, 26)');
    expect(await page.textContent('#theme-toggle')).to.equal('Use light theme');
    await browser.screenshot(page, 'sign-in-dark');
    await page.click('#theme-toggle');
    expect(await background()).to.equal('rgb(246, 247, 249)');
    expect(await page.textContent('#theme-toggle')).to.equal('Use dark theme');
    await page.evaluate('localStorage.clear()');
    await page.close();
  });

  it('passes an automated accessibility audit (axe-core, WCAG 2.1 A and AA), chat and admin, light and dark', async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/chat/`);
    expect(await accessibilityViolations(page), 'sign-in').to.deep.equal([]);
    await signIn(page, chatKey);
    await page.click('#new-session');
    sut.stub.respondWith(
      replyFor('openai', '', [{ id: 'call_a', name: 'lookup_device', arguments: { name: 'r1' } }]),
      replyFor('openai', '**r1** is in ams.'),
    );
    await page.fill('#message', 'Where is r1?');
    await page.click('#send');
    await page.locator('.message.assistant .body strong', { hasText: 'r1' }).waitFor();
    await page.locator('#send:not([disabled])').waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `chat, ${colorScheme}`).to.deep.equal([]);
    }
    expect(errors).to.deep.equal([]);
    await page.close();

    const admin = await browser.page();
    await admin.page.goto(`${sut.baseUrl}/plugins/ai-ops/admin/`);
    await signIn(admin.page, adminKey);
    await admin.page.locator('#models tbody tr', { hasText: 'stub-gpt' }).waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await admin.page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(admin.page), `admin, ${colorScheme}`).to.deep.equal([]);
    }
    expect(admin.errors).to.deep.equal([]);
    await admin.page.close();
  });

  it('admin: re-indexes a changed knowledge-base repository and shows its new chunks', async () => {
    const added = await sut.call('POST', '/api/plugins/ai-ops/kb/repos/', {
      key: adminKey,
      body: { name: 'acme/runbooks', branch: 'main' },
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    const { page, errors } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/admin/?refresh=1`);
    await signIn(page, adminKey);
    const row = page.locator('#repositories tbody tr', { hasText: 'acme/runbooks' });
    await row.locator('.badge[data-status="indexed"]').waitFor();
    const chunks = row.locator('td').nth(2);
    const before = (await chunks.textContent()) ?? '';
    expect(Number(before)).to.be.greaterThan(0);
    remote.commit({ 'drain.md': '# Draining\n\nShift traffic away, wait for sessions to end, then upgrade.\n' });
    await row.getByRole('button', { name: 'Re-index acme/runbooks' }).click();
    await page.locator('#admin-announcer', { hasText: 'Re-indexing acme/runbooks.' }).waitFor();
    await chunks.filter({ hasNotText: new RegExp(`^${before}$`) }).waitFor();
    await row.locator('.badge[data-status="indexed"]').waitFor();
    expect(Number(await chunks.textContent())).to.be.greaterThan(Number(before));
    await browser.screenshot(page, 'admin-knowledge-base');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('admin: the Platform section says the platform is this service and what to set, and checks again on Check now', async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/admin/`);
    await signIn(page, adminKey);
    const platform = page.locator('#platform-section');
    await platform.locator('tbody tr', { hasText: "This service's own API" }).waitFor();
    expect(await platform.locator('tbody tr', { hasText: 'Description' }).textContent()).to.match(/read: \d+ operations/);
    await platform.locator('#platform-connect', { hasText: 'PLATFORM_URL_PROD' }).waitFor();
    await platform.getByRole('button', { name: 'Check now' }).click();
    await page.locator('#admin-announcer', { hasText: 'Platform checked: description read.' }).waitFor();
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it("admin: a server's health badge flips by itself when the server dies; check now reports the check", async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${sut.baseUrl}/plugins/ai-ops/admin/?refresh=1`);
    await signIn(page, adminKey);
    await page.locator('#models tbody tr', { hasText: 'stub-gpt' }).waitFor();
    const row = page.locator('#servers tbody tr', { hasText: 'inventory' });
    await row.locator('.badge[data-status="healthy"]').waitFor();

    const checkNow = row.getByRole('button', { name: 'Check now inventory' });
    await checkNow.focus();
    await page.keyboard.press('Enter');
    await page.locator('#admin-announcer', { hasText: 'inventory: check passed' }).waitFor();
    await row.locator('time').waitFor();
    expect(await row.locator('td').nth(3).textContent()).to.match(/ms$/);
    // No health path: checked by the protocol, and the row says so.
    await row.locator('.cell-note', { hasText: 'health: protocol (initialize, ping)' }).waitFor();
    await row.locator('.cell-note', { hasText: 'protocol check' }).waitFor();
    await browser.screenshot(page, 'admin-healthy');

    await inventory.close();
    // A check as the scheduler runs it, asked through the API: the page is not touched.
    const check = await sut.call('POST', `/api/plugins/ai-ops/mcp-servers/${inventoryId}/health-check/`, { key: adminKey });
    expect(check.body).to.include({ status: 'Unhealthy', healthy: false });
    await row.locator('.badge[data-status="unhealthy"]').waitFor();
    await page.locator('#admin-announcer', { hasText: 'inventory is now Unhealthy.' }).waitFor();
    expect(await row.locator('td').nth(4).textContent()).to.not.equal('');
    // Focus stayed on the button through every refresh.
    expect(await row.locator('button:focus').count()).to.equal(1);
    await browser.screenshot(page, 'admin-unhealthy');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});
