import { expect } from 'chai';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { packagePath } from '../../src/kernel/package-root.js';
import { McpClientManager } from '../../src/mcp-client/mcp-client-manager.js';
import type { McpElicitation, McpProgress } from '../../src/mcp-client/mcp-connector.port.js';
import { SdkMcpConnector } from '../../src/mcp-client/adapters/sdk-connector.adapter.js';
import { toolResultContent } from '../../src/mcp-client/tool-result-text.js';
import { loopbackOutbound } from '../support/outbound.js';
import { httpServerRecord } from '../support/mcp-fixtures/server-records.js';

/** The protocol's reference server, over stdio. */
const EVERYTHING = packagePath('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('the MCP client with the reference server', function () {
  this.timeout(60_000);
  let sut: McpClientManager;
  const target = {
    server: httpServerRecord('everything', '', { protocol: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] }),
    version: 'v1',
  };

  before(() => {
    sut = new McpClientManager({
      connector: new SdkMcpConnector({ clientName: 'aiops-test', clientVersion: '1', outbound: loopbackOutbound() }),
      credentials: { resolve: () => Promise.reject(new Error('no secrets here')) },
      connectionTtlMs: 60_000,
      connectTimeoutMs: 20_000,
      logger: silentLogger(),
    });
  });
  after(() => sut.close());

  it('declares elicitation and sampling, so the server offers the tools that need them; a task-only tool is marked for the task API', async () => {
    const tools = await sut.listTools(target);
    const names = tools.map((tool) => tool.name);
    expect(names).to.include.members(['trigger-elicitation-request', 'trigger-sampling-request', 'trigger-long-running-operation']);
    const research = tools.find((tool) => tool.name === 'simulate-research-query');
    expect(research).to.include({ taskRequired: true });
    expect(research).not.to.have.property('notOffered');
  });

  it('sends a progress token and hears each progress notification (a 0.3 s operation in 3 steps)', async () => {
    const heard: McpProgress[] = [];
    const result = await sut.callTool(
      target,
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { timeoutMs: 10_000, onProgress: (progress) => heard.push(progress) },
    );
    expect(toolResultContent(result).text).to.include('Long running operation completed');
    // The SDK drops a notification still queued when the result comes (the last step's, at times): the others come in order.
    const steps = heard.map(({ progress, total }) => [progress, total]);
    expect(steps.length).to.be.within(2, 3);
    expect(steps).to.deep.equal(
      [
        [1, 3],
        [2, 3],
        [3, 3],
      ].slice(0, steps.length),
    );
  });

  it('restarts the time limit on progress: 4 steps of 0.5 s each finish under a 1.5 s limit, up to the total', async () => {
    const result = await sut.callTool(
      target,
      'trigger-long-running-operation',
      { duration: 2, steps: 4 },
      {
        timeoutMs: 1_500,
        maxTotalMs: 10_000,
        onProgress: () => undefined,
      },
    );
    expect(toolResultContent(result).text).to.include('Steps: 4');
    // With a total under the run's length, the total cuts it however often it reports.
    const cut = await sut
      .callTool(
        target,
        'trigger-long-running-operation',
        { duration: 2, steps: 4 },
        { timeoutMs: 1_000, maxTotalMs: 1_000, onProgress: () => undefined },
      )
      .then(
        () => 'answered',
        (error: Error) => error.message,
      );
    expect(cut).to.match(/Maximum total timeout/i);
  });

  it('cancels a call whose signal aborts (notifications/cancelled)', async () => {
    const stop = new AbortController();
    const call = sut.callTool(
      target,
      'trigger-long-running-operation',
      { duration: 20, steps: 20 },
      {
        timeoutMs: 30_000,
        signal: stop.signal,
        onProgress: () => stop.abort(new Error('the turn was stopped')),
      },
    );
    const outcome = await call.then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(outcome).to.include('the turn was stopped');
  });

  it("passes a form question to the one call in flight and returns the user's answer to the server, with the schema's defaults for what the user left out", async () => {
    const asked: McpElicitation[] = [];
    const result = await sut.callTool(
      target,
      'trigger-elicitation-request',
      {},
      {
        timeoutMs: 10_000,
        elicit: async (question) => {
          asked.push(question);
          return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 3 } };
        },
      },
    );
    expect(asked).to.have.length(1);
    expect(asked[0]).to.include({ mode: 'form' });
    expect(asked[0]!.mode === 'form' && asked[0]!.requestedSchema).to.have.nested.property('properties.name.type', 'string');
    const answered = toolResultContent(result).text;
    expect(answered).to.include('Ada Lovelace').and.include('Favorite Integer: 3');
    // No number was given: the client fills in the requested schema's default (SEP-1034), where the user's own values stand.
    expect(answered).to.include('Favorite Number: 3.14');
  });

  it('passes a URL question on, and declines one that would send the user to anything but a web address', async () => {
    const asked: McpElicitation[] = [];
    const elicit = async (question: McpElicitation) => {
      asked.push(question);
      return { action: 'accept' as const };
    };
    const web = await sut.callTool(
      target,
      'trigger-url-elicitation',
      { url: 'https://example.com/consent', message: 'Consent, please' },
      { timeoutMs: 10_000, elicit },
    );
    expect(asked[0]).to.include({ mode: 'url', url: 'https://example.com/consent', message: 'Consent, please' });
    expect(toolResultContent(web).text).to.match(/accept/i);
    const script = await sut.callTool(
      target,
      'trigger-url-elicitation',
      { url: 'javascript:alert(1)', message: 'Click' },
      { timeoutMs: 10_000, elicit },
    );
    expect(asked, 'not put to the user').to.have.length(1);
    expect(toolResultContent(script).text).to.match(/decline/i);
  });

  it('cancels a question no call can take', async () => {
    const result = await sut.callTool(target, 'trigger-elicitation-request', {}, { timeoutMs: 10_000 });
    expect(toolResultContent(result).text).to.match(/cancel/i);
  });

  it('refuses sampling to a call without the hook (the record does not allow it) and serves it with one', async () => {
    const refused = await sut.callTool(target, 'trigger-sampling-request', { prompt: 'hello', maxTokens: 10 }, { timeoutMs: 10_000 }).then(
      (result) => toolResultContent(result).text,
      (error: Error) => error.message,
    );
    expect(refused).to.include('sampling is not allowed for this server');
    const served = await sut.callTool(
      target,
      'trigger-sampling-request',
      { prompt: 'hello', maxTokens: 10 },
      {
        timeoutMs: 10_000,
        sample: async (request) => ({ text: `echo: ${request.messages.map((message) => message.text).join(' ')}`, model: 'stub-model' }),
      },
    );
    expect(toolResultContent(served).text).to.include('echo:').and.to.include('stub-model');
  });

  it('runs a task-only tool as a task, polling its status until its result', async () => {
    const result = await sut.callTool(
      target,
      'simulate-research-query',
      { topic: 'bgp', ambiguous: false },
      { timeoutMs: 30_000, asTask: true },
    );
    expect(result.isError).to.equal(false);
    expect(toolResultContent(result).text).to.match(/bgp/i);
  });
});
