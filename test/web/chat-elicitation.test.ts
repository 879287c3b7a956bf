import { expect } from 'chai';
import { packagePath } from '../../src/kernel/package-root.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import type { ChatHarness } from '../chat/chat-harness.js';
import { replyFor, type StubRequest } from '../support/provider-stubs.js';
import { accessibilityViolations } from './browser.js';
import { startWebHarness, type WebHarness } from './web-harness.js';

/** The protocol's reference server, over stdio. */
const EVERYTHING = {
  protocol: 'stdio',
  command: process.execPath,
  args: [packagePath('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
};

describe("answering an MCP server's question in the chat page (real browser)", function () {
  this.timeout(90_000);
  let web: WebHarness;
  let sut: ChatHarness;

  before(async function () {
    web = await startWebHarness(this, { AGENT_MAX_STEPS: '3', MCP_TOOL_TIMEOUT_S: '2' });
    ({ sut } = web);
    await sut.model({ name: 'agent' });
    await sut.records.mcpServers.create({ name: 'everything', status: 'Healthy', approval: 'never', ...EVERYTHING } as never, OPERATOR);
  });
  after(async () => {
    await web?.close();
  });

  it('renders the requested schema as a labelled form, sends the answer, and shows it answered; axe-clean in both themes', async () => {
    const ada = await sut.token('ada');
    const { page, errors } = await web.browser.page();
    await web.open(page, 'chat', ada);
    sut.stub.respondWith(
      replyFor('openai', '', [{ id: 'call_1', name: 'trigger-elicitation-request', arguments: {} }]),
      replyFor('openai', 'Thanks.'),
    );
    const before = sut.stub.requests.length;
    await page.fill('#message', 'ask me');
    await page.press('#message', 'Enter');
    const card = page.locator('.message.assistant .elicitation');
    await card.waitFor();
    expect(await card.locator('.elicitation-message').textContent()).to.equal('Please provide inputs for the following fields:');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(page), `question, ${colorScheme}`).to.deep.equal([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await web.browser.screenshot(page, 'chat-elicitation');
    await card.getByLabel('String (required)').fill('Ada Lovelace');
    await card.getByRole('button', { name: 'Submit' }).click();
    await card.locator('.elicitation-outcome', { hasText: 'Answered.' }).waitFor();
    await page.locator('.message.assistant .body', { hasText: 'Thanks.' }).waitFor();
    const results = (sut.stub.requests[before + 1] as StubRequest).body.messages.filter(
      (message: { role: string }) => message.role === 'tool',
    );
    expect(JSON.stringify(results)).to.include('Ada Lovelace');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});
