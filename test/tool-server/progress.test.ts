import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildPlatformToolServer, type PlatformToolServer, openToolServerWrites } from '../../src/roles/mcp.js';
import { callerCheck } from '../../src/tool-server/caller-check.js';
import { serveHttp, type McpHttpServer } from '../../src/tool-server/http.js';
import { createRemote } from '../knowledge/support/git-remote.js';

const TOKEN = 'static-tool-token-0123456789abcdef';

describe('HTTP tool server: a long tool reports progress as an SSE answer', () => {
  let root: string;
  let runtime: PlatformToolServer;
  let http: McpHttpServer;
  let url: string;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-progress-'));
    const files = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`docs/page-${i}.md`, `# Page ${i}\n\nRacks and devices, part ${i}.\n`]),
    );
    const remote = createRemote(root, 'acme/progress', files);
    const config = loadConfig({
      GIT_BASE_URL: remote.baseUrl,
      EMBEDDING_MODEL: 'none',
      KB_JOB_WAIT_S: '60',
      DATA_DIR: path.join(root, 'data'),
    });
    runtime = await buildPlatformToolServer(config, silentLogger());
    http = await serveHttp(runtime.deps, 'test', {
      host: '127.0.0.1',
      port: 0,
      callers: callerCheck({ staticToken: TOKEN }),
      writes: openToolServerWrites(config, runtime.deps, silentLogger()),
    });
    url = `http://127.0.0.1:${http.port}/mcp`;
  });
  after(async () => {
    await http.close();
    await runtime.close();
    await rm(root, { recursive: true, force: true });
  });

  it('sends the files indexed as progress notifications, then the result, to a client that asked', async () => {
    const client = new Client({ name: 'host', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    try {
      const added = (await client.callTool({ name: 'platform_kb_add_repo', arguments: { repo: 'acme/progress' } })) as CallToolResult;
      expect(added.isError, JSON.stringify(added.content)).to.not.equal(true);
      // The add's own run first (a call joining a run under way hears nothing of it); then a forced run walks every file.
      await client.callTool({ name: 'platform_kb_update_repos', arguments: {} });
      const heard: Progress[] = [];
      const result = (await client.callTool({ name: 'platform_kb_update_repos', arguments: { force: true } }, undefined, {
        onprogress: (progress) => heard.push(progress),
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
      expect(heard.length).to.be.greaterThan(0);
      const progress = heard.map((each) => each.progress);
      expect(progress).to.deep.equal([...progress].sort((a, b) => a - b));
      expect(new Set(progress).size).to.equal(progress.length);
      expect(heard.at(-1)).to.include({ progress: 6, total: 6 });
      expect(heard.at(-1)!.message).to.include('acme/progress');
    } finally {
      await client.close();
    }
  });

  it('answers as SSE only a request that asked for progress; anything else is one JSON body', async () => {
    const post = (meta: Record<string, unknown>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'platform_kb_list_repos', arguments: {}, _meta: meta },
        }),
      });
    const streamed = await post({ progressToken: 'p-1' });
    expect(streamed.status).to.equal(200);
    expect(streamed.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(await streamed.text()).to.match(/^data: .*"id":7/m);
    const plain = await post({});
    expect(plain.headers.get('content-type')).to.match(/^application\/json/);
    expect(await plain.json()).to.include({ id: 7 });
  });
});
