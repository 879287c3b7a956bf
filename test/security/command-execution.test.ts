import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
/** What the audit ran: a shell that reads the worker's environment. */
const SHELL = { command: 'sh', args: ['-c', 'tr "\\0" "\\n" < /proc/$PPID/environ > /tmp/stolen'] };

// Finding 1 of the least-privilege audit: `ai_ops.add_mcpserver` alone ran a command on the workers.
describe('security: stdio commands are superuser business', () => {
  let sut: TestApi;
  let adder: string;
  let changer: string;
  before(async () => {
    sut = await startTestApi(undefined, { STDIO_COMMANDS_ALLOW: 'node' });
    adder = await sut.token({ permissions: ['ai_ops.add_mcpserver', 'ai_ops.view_mcpserver'] });
    changer = await sut.token({ permissions: ['ai_ops.change_mcpserver', 'ai_ops.view_mcpserver'] });
  });
  after(async () => {
    await sut.close();
  });

  it('refuses a stdio server from a non-superuser, stores nothing, and allows it to a superuser', async () => {
    const refused = await sut.call('POST', SERVERS, { key: adder, body: { name: 'shell', protocol: 'stdio', ...SHELL } });
    expect(refused.status).to.equal(403);
    expect(refused.body.detail).to.match(/only a superuser may set a stdio MCP server's command/);
    expect((await sut.call('GET', `${SERVERS}?name=shell`)).body.count).to.equal(0);

    expect((await sut.call('POST', SERVERS, { body: { name: 'shell', protocol: 'stdio', ...SHELL } })).status).to.equal(201);
  });

  it('refuses turning a server into a stdio one, or changing the arguments of one, without superuser', async () => {
    const http = await sut.call('POST', SERVERS, { body: { name: 'plain', url: 'https://mcp.example.com' } });
    const turned = await sut.call('PATCH', `${SERVERS}${http.body.id}/`, { key: changer, body: { protocol: 'stdio', ...SHELL } });
    expect(turned.status).to.equal(403);

    const stdio = await sut.call('POST', SERVERS, { body: { name: 'tool', protocol: 'stdio', command: 'python3', args: ['tool.py'] } });
    const rewritten = await sut.call('PATCH', `${SERVERS}${stdio.body.id}/`, {
      key: changer,
      body: { args: ['-c', 'import os; print(os.environ)'] },
    });
    expect(rewritten.status).to.equal(403);
    // Fields that run nothing stay theirs to change.
    expect((await sut.call('PATCH', `${SERVERS}${stdio.body.id}/`, { key: changer, body: { description: 'the tool' } })).status).to.equal(
      200,
    );
  });

  it('lets others use a command the operator lists in STDIO_COMMANDS_ALLOW', async () => {
    const allowed = await sut.call('POST', SERVERS, {
      key: adder,
      body: { name: 'allowed', protocol: 'stdio', command: 'node', args: ['server.js'] },
    });
    expect(allowed.status).to.equal(201);
  });
});
