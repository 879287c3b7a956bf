import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import type { ChatHarness } from '../chat/chat-harness.js';
import { accessibilityViolations, type TestBrowser } from './browser.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

const dialogOf = (page: Page) => page.locator('dialog[open]');

/** The visible control a label names (provider- and protocol-specific variants hide the others). */
const field = (scope: Locator, label: string) => scope.getByLabel(label, { exact: true }).filter({ visible: true });

/** Asserts the API's message for a field is shown next to it: described by it, marked invalid, focused. */
async function expectFieldError(control: Locator, message: RegExp): Promise<void> {
  await control.and(control.page().locator('[aria-invalid="true"]')).waitFor();
  const errorIds = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id.endsWith('-error'));
  expect(errorIds).to.have.length(1);
  const error = control.page().locator(`#${errorIds[0]}`);
  expect(await error.isVisible()).to.equal(true);
  expect(await error.textContent()).to.match(message);
  expect(await control.and(control.page().locator(':focus')).count(), 'the first invalid field has focus').to.equal(1);
}

/** The axe-core audit with a form open, in both themes. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await accessibilityViolations(page), `${what}, ${colorScheme}`).to.deep.equal([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Confirms (or cancels) the confirmation dialog, checking it names what happens. */
async function answerConfirmation(page: Page, action: string, confirm: boolean): Promise<void> {
  const dialog = page.locator('dialog[open][role="alertdialog"]');
  await dialog.waitFor();
  // Cancel has focus: Enter alone never destroys anything.
  expect(await dialog.locator('button:focus').textContent()).to.equal('Cancel');
  if (confirm) await dialog.getByRole('button', { name: action }).click();
  else await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached' });
}

describe('administration page: forms in a real browser', function () {
  this.timeout(60_000);
  let web: WebHarness;
  let sut: ChatHarness;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];

  before(async function () {
    web = await startWebHarness(this);
    ({ sut, browser } = web);
    ({ page, errors } = await browser.page());
    await web.open(page, 'admin', web.adminKey, '?refresh=300');
  });
  after(async () => {
    await web?.close();
  });
  afterEach(async () => {
    // A failed test leaves no dialog open over the next one.
    await page.evaluate("document.querySelectorAll('dialog[open]').forEach((dialog) => dialog.close())");
    expect(errors).to.deep.equal([]);
  });

  it('LLM models: provider-aware form, a field error next to its field, create, edit, default switch, confirmed delete', async () => {
    // Keyboard: the Add button is reachable and opens the form with its first field focused.
    await page.locator('#add-models').focus();
    await page.keyboard.press('Enter');
    const dialog = dialogOf(page);
    await field(dialog, 'Name').and(page.locator(':focus')).waitFor();
    expect(await field(dialog, 'API version').count()).to.equal(0);
    await field(dialog, 'Provider').selectOption('azure_ai');
    await field(dialog, 'API version').waitFor();
    expect(await field(dialog, 'Azure OpenAI endpoint').count()).to.equal(1);
    expect(await field(dialog, 'API key secret').count()).to.equal(1);
    await field(dialog, 'Provider').selectOption('anthropic');
    expect(await field(dialog, 'API version').count()).to.equal(0);
    expect(await field(dialog, 'Temperature').getAttribute('max')).to.equal('1');
    await field(dialog, 'Provider').selectOption('openai');

    await field(dialog, 'Name').fill('gpt-4o');
    await field(dialog, 'Endpoint (optional)').fill('not a url');
    await field(dialog, 'Model settings (JSON)').fill('{"max_tokens": 512}');
    await expectAccessible(page, 'model form');
    await dialog.getByRole('button', { name: 'Create model' }).click();
    await expectFieldError(field(dialog, 'Endpoint (optional)'), /starts with http/);
    await web.browser.screenshot(page, 'admin-model-form-error');

    await field(dialog, 'Model settings (JSON)').fill('{"max_tokens": ');
    await field(dialog, 'Endpoint (optional)').fill(`${sut.stub.url}/v1`);
    await dialog.getByRole('button', { name: 'Create model' }).click();
    await expectFieldError(field(dialog, 'Model settings (JSON)'), /not valid JSON/);
    await field(dialog, 'Model settings (JSON)').fill('{"max_tokens": 512}');
    await field(dialog, 'API key secret').fill(sut.secret.name);
    await dialog.getByRole('button', { name: 'Create model' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.locator('#add-models:focus').count()).to.equal(1);
    const row = page.locator('#models tbody tr', { hasText: 'gpt-4o' });
    await row.waitFor();
    const stored = (await sut.records.llmModels.list({ limit: 10, offset: 0, filters: { name: 'gpt-4o' } })).results[0]!;
    expect(stored).to.include({ provider: 'openai', hosted_endpoint: `${sut.stub.url}/v1` });
    expect(stored.model_config).to.deep.equal({ max_tokens: 512 });
    expect((await sut.records.llmModels.get(stored.id)).model_secret_key).to.equal(sut.secret.name);

    // Edit: the form comes filled in, secret name included (it is on the detail view only).
    await row.getByRole('button', { name: 'Edit gpt-4o' }).click();
    expect(await field(dialog, 'API key secret').inputValue()).to.equal(sut.secret.name);
    await field(dialog, 'Description').fill('the big one');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await row.locator('.cell-note', { hasText: 'the big one' }).waitFor();

    // The default switch moves the flag from one model to the other.
    await sut.model({ name: 'llama3' });
    await page.click('#refresh-now');
    const other = page.locator('#models tbody tr', { hasText: 'llama3' });
    await other.locator('.badge[data-status="default"]').waitFor();
    await row.getByRole('button', { name: 'Make default gpt-4o' }).click();
    await row.locator('.badge[data-status="default"]').waitFor();
    expect(await other.locator('.badge').count()).to.equal(0);
    await page.locator('#admin-announcer', { hasText: 'gpt-4o is now the default model.' }).waitFor();
    await web.browser.screenshot(page, 'admin-models');

    // Delete asks first; cancelling keeps the model.
    await other.getByRole('button', { name: 'Delete llama3' }).click();
    await answerConfirmation(page, 'Delete model', false);
    expect(await other.count()).to.equal(1);
    await other.getByRole('button', { name: 'Delete llama3' }).click();
    await expectAccessible(page, 'confirmation');
    await web.browser.screenshot(page, 'admin-confirm-delete');
    await answerConfirmation(page, 'Delete model', true);
    await other.waitFor({ state: 'detached' });
    await page.locator('#admin-announcer', { hasText: 'LLM model llama3 deleted.' }).waitFor();
  });

  it('MCP servers: protocol-aware form, the API’s field error, create, edit and confirmed delete', async () => {
    await page.click('#add-servers');
    const dialog = dialogOf(page);
    await field(dialog, 'Base URL').waitFor();
    expect(await field(dialog, 'Command').count()).to.equal(0);
    await field(dialog, 'Protocol').selectOption('stdio');
    await field(dialog, 'Command').waitFor();
    expect(await field(dialog, 'Base URL').count()).to.equal(0);
    await field(dialog, 'Arguments, one per line').fill('--stdio\n\n--verbose');
    await field(dialog, 'Protocol').selectOption('http');
    await field(dialog, 'Name').fill('netbox-tools');
    await expectAccessible(page, 'server form');
    await dialog.getByRole('button', { name: 'Create server' }).click();
    await expectFieldError(field(dialog, 'Base URL'), /needs a url/);
    await web.browser.screenshot(page, 'admin-server-form-error');
    await field(dialog, 'Base URL').fill('http://127.0.0.1:9');
    await field(dialog, 'Status').selectOption('Maintenance');
    await dialog.getByRole('button', { name: 'Create server' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('#servers tbody tr', { hasText: 'netbox-tools' });
    await row.locator('.badge[data-status="maintenance"]').waitFor();
    expect(await row.locator('code').textContent()).to.equal('http://127.0.0.1:9/mcp');

    await row.getByRole('button', { name: 'Edit netbox-tools' }).click();
    expect(await field(dialog, 'Base URL').inputValue()).to.equal('http://127.0.0.1:9');
    await field(dialog, 'MCP path').fill('/sse');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await row.locator('code', { hasText: 'http://127.0.0.1:9/sse' }).waitFor();
    await web.browser.screenshot(page, 'admin-servers');

    await row.getByRole('button', { name: 'Delete netbox-tools' }).click();
    await answerConfirmation(page, 'Delete server', true);
    await row.waitFor({ state: 'detached' });
  });

  it('secrets: where the value lives, never the value; a misplaced path is refused next to its field', async () => {
    await page.click('#add-secrets');
    const dialog = dialogOf(page);
    await field(dialog, 'Variable name').waitFor();
    await field(dialog, 'Name').fill('netbox-token');
    await field(dialog, 'Where the value lives').selectOption('text-file');
    expect(await field(dialog, 'Variable name').count()).to.equal(0);
    await field(dialog, 'File path').fill('relative/path');
    // Nothing in the form takes a secret's value.
    expect(await dialog.locator('input[type="password"], [name="value"]').count()).to.equal(0);
    await expectAccessible(page, 'secret form');
    await dialog.getByRole('button', { name: 'Create secret' }).click();
    await expectFieldError(field(dialog, 'File path'), /ABSOLUTE_PATH/);
    await web.browser.screenshot(page, 'admin-secret-form-error');
    await field(dialog, 'File path').fill('/run/secrets/netbox');
    await dialog.getByRole('button', { name: 'Create secret' }).click();
    const row = page.locator('#secrets tbody tr', { hasText: 'netbox-token' });
    await row.locator('code', { hasText: '/run/secrets/netbox' }).waitFor();

    await row.getByRole('button', { name: 'Delete netbox-token' }).click();
    await answerConfirmation(page, 'Delete secret', true);
    await row.waitFor({ state: 'detached' });
  });

  it('API tokens: a field error, then the new key shown once with a copy button; it works; revoked after confirmation', async () => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(sut.baseUrl).origin });
    await page.click('#add-tokens');
    const dialog = dialogOf(page);
    await field(dialog, 'User').fill('noc bot');
    await field(dialog, 'Superuser (may do everything, tokens included)').check();
    expect(await dialog.getByRole('group', { name: 'Permissions' }).isVisible()).to.equal(false);
    await field(dialog, 'Superuser (may do everything, tokens included)').uncheck();
    await dialog.getByLabel('ai_ops.view_llmmodel', { exact: true }).check();
    await expectAccessible(page, 'token form');
    await dialog.getByRole('button', { name: 'Create token' }).click();
    await expectFieldError(field(dialog, 'User'), /^Use letters, digits and "@"/);
    await field(dialog, 'User').fill('noc-bot');
    await field(dialog, 'Description').fill('dashboards');
    await dialog.getByRole('button', { name: 'Create token' }).click();

    const keyDialog = page.locator('dialog[open][aria-labelledby="new-token-heading"]');
    await keyDialog.waitFor();
    const key = await keyDialog.getByLabel('Key').inputValue();
    expect(key).to.match(/^[0-9a-f]{40}$/);
    expect(await keyDialog.locator('button:focus').textContent()).to.equal('Copy key');
    await page.keyboard.press('Enter');
    await keyDialog.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(key);
    await expectAccessible(page, 'new key');
    await web.browser.screenshot(page, 'admin-token-key-once');
    await keyDialog.getByRole('button', { name: 'Done' }).click();
    // Closed is not yet gone: the dialog leaves the page, key and all, on its close event, a task later.
    await page.locator('dialog[aria-labelledby="new-token-heading"]').waitFor({ state: 'detached' });

    // Shown once: the page holds no copy of it any more, the list shows its last four characters.
    expect(await page.content()).to.not.include(key);
    const row = page.locator('#tokens tbody tr', { hasText: 'noc-bot' });
    await row.locator('code', { hasText: `…${key.slice(-4)}` }).waitFor();
    expect(await row.textContent()).to.include('ai_ops.chat, ai_ops.view_llmmodel');
    expect((await sut.call('GET', '/api/plugins/ai-ops/llm-models/', { key })).status).to.equal(200);
    await web.browser.screenshot(page, 'admin-tokens');

    await row.getByRole('button', { name: /^Revoke noc-bot/ }).click();
    await answerConfirmation(page, 'Revoke token', true);
    await row.waitFor({ state: 'detached' });
    expect((await sut.call('GET', '/api/plugins/ai-ops/llm-models/', { key })).status).to.equal(401);
  });

  it('knowledge base: a bad name refused next to its field, a repository added and indexed, removed after confirmation', async () => {
    await page.click('#add-kb');
    const dialog = dialogOf(page);
    await field(dialog, 'Repository').fill('not a repository');
    await expectAccessible(page, 'repository form');
    await dialog.getByRole('button', { name: 'Add and index' }).click();
    await expectFieldError(field(dialog, 'Repository'), /^Enter a repository as owner\/name/);
    // A URL or folder may be listed under a name of its own, and comes with a credential secret for a superuser.
    expect(await field(dialog, 'Listed as (optional)').count()).to.equal(0);
    await field(dialog, 'Repository').fill('https://gitlab.example.com/net/runbooks.git?x');
    await field(dialog, 'Listed as (optional)').waitFor();
    expect(await field(dialog, 'Credential secret (optional)').count()).to.equal(1);
    await dialog.getByRole('button', { name: 'Add and index' }).click();
    await expectFieldError(field(dialog, 'Repository'), /has a query or fragment/);
    await field(dialog, 'Repository').fill('acme/runbooks');
    await dialog.getByRole('button', { name: 'Add and index' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('#repositories tbody tr', { hasText: 'acme/runbooks' });
    await row.waitFor();
    // The page refreshes every 300 s here: ask for the indexing result.
    for (let attempt = 0; (await row.locator('.badge[data-status="indexed"]').count()) === 0; attempt++) {
      if (attempt > 100) throw new Error('acme/runbooks was never indexed');
      await page.click('#refresh-now');
      await page.waitForTimeout(100);
    }
    await web.browser.screenshot(page, 'admin-knowledge-added');
    await row.getByRole('button', { name: 'Remove acme/runbooks' }).click();
    await answerConfirmation(page, 'Remove repository', true);
    await row.waitFor({ state: 'detached' });
    await page.locator('#admin-announcer', { hasText: 'Repository acme/runbooks removed.' }).waitFor();
  });

  it('offers a limited token only what it may do: no stdio command, no secret, no tokens, no adding where it may not', async () => {
    const key = await sut.token('operator', [
      'ai_ops.view_llmmodel',
      'ai_ops.view_mcpserver',
      'ai_ops.add_mcpserver',
      'extras.view_secret',
      'extras.change_secret',
    ]);
    const limited = await browser.page();
    await web.open(limited.page, 'admin', key, '?refresh=300');
    await limited.page.locator('#signed-in-as', { hasText: 'operator' }).waitFor();
    expect(await limited.page.locator('#add-models').isHidden()).to.equal(true);
    expect(await limited.page.locator('#add-secrets').isHidden()).to.equal(true);
    expect(await limited.page.locator('#tokens-section').isHidden()).to.equal(true);
    expect(await limited.page.locator('#secrets-note').textContent()).to.match(/Only a superuser/);
    expect(await limited.page.locator('#kb-note').textContent()).to.match(/ai_ops\.view_kb/);
    expect(await limited.page.locator('#models tbody button').count()).to.equal(0);

    await limited.page.click('#add-servers');
    const dialog = dialogOf(limited.page);
    expect(await field(dialog, 'Protocol').locator('option').allTextContents()).to.deep.equal(['HTTP (Streamable HTTP, or HTTP+SSE)']);
    expect(await dialog.getByLabel('Authentication secret').count()).to.equal(0);
    // Naming a secret, and a service account every user would act as, are a superuser's.
    expect(await field(dialog, 'Authentication').locator('option').allTextContents()).to.deep.equal(['None', 'OAuth 2.1 (HTTP only)']);
    await field(dialog, 'Authentication').selectOption('oauth');
    expect(await field(dialog, 'OAuth accounts').locator('option').allTextContents()).to.have.length(1);
    expect(await dialog.getByLabel('OAuth client secret').count()).to.equal(0);
    await field(dialog, 'Authentication').selectOption('none');
    // Taking calls out of their user's approval is a superuser's: neither the internal kind nor approval "never" is offered.
    expect(await field(dialog, 'Kind').locator('option').allTextContents()).to.deep.equal([
      'External (its tool annotations are not trusted)',
    ]);
    expect(await field(dialog, 'Approval').locator('option').allTextContents()).to.have.length(2);
    // What a check found is the check's to say.
    expect(await field(dialog, 'Status').locator('option').allTextContents()).to.deep.equal(['Unknown', 'Maintenance']);
    await field(dialog, 'Name').fill('operators-server');
    await field(dialog, 'Base URL').fill(sut.stub.url);
    await dialog.getByRole('button', { name: 'Create server' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await sut.records.mcpServers.getByName('operators-server'))?.mcp_type).to.equal('external');
    await limited.page.click('#add-servers');
    await limited.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await limited.page.locator('#add-servers:focus').count()).to.equal(1);
    await web.browser.screenshot(limited.page, 'admin-limited-token');
    expect(limited.errors).to.deep.equal([]);
    await limited.page.close();
  });
});
