import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

/** More records than one list page holds (MAX_PAGE_SIZE 2): the administration page shows them all. */
describe('administration page: lists longer than a page', function () {
  this.timeout(60_000);
  let web: WebHarness;
  let page: Page;
  let errors: string[];

  before(async function () {
    web = await startWebHarness(this, { MAX_PAGE_SIZE: '2' });
    const { records } = web.sut;
    for (let n = 1; n <= 5; n++) {
      await records.secrets.create(
        { name: `paged-secret-${n}`, description: '', provider: 'environment-variable', parameters: { variable: `PAGED_${n}` } },
        OPERATOR,
      );
      await records.tokens.create({
        username: `paged-user-${n}`,
        superuser: false,
        permissions: ['ai_ops.chat'],
        writeEnabled: false,
        expires: null,
      });
    }
    ({ page, errors } = await web.browser.page());
    await web.open(page, 'admin', web.adminKey, '?refresh=300');
  });
  after(async () => {
    await web?.close();
  });

  it('shows every secret and every token, page after page of the API', async () => {
    const secrets = page.locator('#secrets tbody tr', { hasText: 'paged-secret-' });
    await secrets.nth(4).waitFor();
    expect(await secrets.count()).to.equal(5);
    const tokens = page.locator('#tokens tbody tr', { hasText: 'paged-user-' });
    await tokens.nth(4).waitFor();
    expect(await tokens.count()).to.equal(5);
    expect(errors).to.deep.equal([]);
  });

  it('offers every secret by name in each secret field of a form', async () => {
    await page.click('#add-servers');
    for (const field of ['auth_secret_key', 'oauth_client_secret_key']) {
      const list = await page.locator(`dialog[open] input[name="${field}"]`).getAttribute('list');
      const options = page.locator(`dialog[open] datalist[id="${list}"] option[value^="paged-secret-"]`);
      await options.nth(4).waitFor({ state: 'attached' });
      expect(await options.count(), field).to.equal(5);
    }
  });
});
