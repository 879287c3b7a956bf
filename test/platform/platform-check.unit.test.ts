import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { checkPlatformCommand } from '../../src/cli/commands/platform.js';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { CONNECT_PLATFORM } from '../../src/platform/platform-check.js';
import { buildPlatformToolServer } from '../../src/roles/mcp.js';
import { platformCheck } from '../../src/roles/platform.js';
import { createServer } from '../../src/tool-server/server.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';

const TOKEN = 'nbtoken-platform-check-0123456789';

describe('platform check: which platform the agent acts on, and saying so when it is this service', () => {
  let nautobot: StubPlatform;
  let dir: string;

  before(async () => {
    nautobot = await startStubPlatform(fixture('nautobot-openapi.json'));
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-platform-check-'));
  });
  after(async () => {
    await nautobot.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The settings of a process, on this test's folder; the platform is this service unless `env` names another. */
  const config = (env: Record<string, string> = {}) =>
    loadConfig({ EMBEDDING_MODEL: 'none', DATA_DIR: dir, PLATFORM_INDEX_WAIT_MS: '10000', ...env });

  it("reads this service's own description when the platform is this service, and says what to set", async () => {
    const check = await platformCheck(config().platform)();
    expect(check).to.include({ env: 'local', is_self: true, token_set: false, to_connect: CONNECT_PLATFORM });
    expect(check.description).to.include({ state: 'ok', source: "this service's own code", error: null });
    expect(check.description.operations).to.be.above(50);
    expect(CONNECT_PLATFORM).to.match(/PLATFORM_ENV=prod, PLATFORM_URL_PROD=.*PLATFORM_TOKEN=/);
  });

  it("reads an external platform's description with its operations' count, and names no setting to add", async () => {
    const check = await platformCheck(config({ PLATFORM_URL_LOCAL: nautobot.url, PLATFORM_TOKEN: TOKEN }).platform)();
    expect(check).to.include({ is_self: false, token_set: true, to_connect: null, url: nautobot.url });
    expect(check.description).to.include({ state: 'ok', source: '/api/docs/?format=openapi on the platform' });
    expect(check.description.operations).to.be.above(500);
  });

  it("says why a description cannot be read, never showing the token or the URL's password", async () => {
    const unreachable = `http://admin:hunter2-password@127.0.0.1:9`;
    const check = await platformCheck(config({ PLATFORM_ENV: 'prod', PLATFORM_URL_PROD: unreachable, PLATFORM_TOKEN: TOKEN }).platform)();
    expect(check.description.state).to.equal('failed');
    expect(check.description.error).to.match(/127\.0\.0\.1:9/);
    expect(JSON.stringify(check)).not.to.match(/hunter2|nbtoken/);
    expect(check.url).to.equal('http://127.0.0.1:9');
  });

  it('`aiops platform check` prints the same, and exits 1 when the description cannot be read', async () => {
    const printed = async (env: Record<string, string>) => {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (chunk: Buffer) => chunks.push(chunk));
      const code = await checkPlatformCommand(config(env), {}, out);
      return { code, text: Buffer.concat(chunks).toString('utf8') };
    };
    const self = await printed({});
    expect(self.code).to.equal(0);
    expect(self.text).to.match(
      /^platform: the agent acts on this service's own API \(http:\/\/127\.0\.0\.1:8080\), not on Nautobot or NetBox$/m,
    );
    expect(self.text).to.match(/^description: read, \d+ operations \(from this service's own code\)$/m);
    expect(self.text).to.include(`to connect: ${CONNECT_PLATFORM}`);
    const down = await printed({ PLATFORM_ENV: 'prod', PLATFORM_URL_PROD: 'http://127.0.0.1:9', PLATFORM_TOKEN: TOKEN });
    expect(down.code).to.equal(1);
    expect(down.text).to.match(/^description: not read \(from \/api\/docs\/\?format=openapi on the platform\): .*127\.0\.0\.1:9/m);
    expect(down.text).not.to.include('to connect');
  });

  describe('the endpoint search', () => {
    /** The note of the endpoint search tool's answer to `query`, as the model reads it. */
    async function searchNote(env: Record<string, string>, query: string): Promise<{ note?: string; best: string }> {
      const runtime = await buildPlatformToolServer(config(env), silentLogger());
      const { server, cleanup } = createServer(runtime.deps, 'test');
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'test', version: '1' });
      try {
        await server.connect(serverSide);
        await client.connect(clientSide);
        const result = (await client.callTool({ name: 'platform_openapi_api_request_schema', arguments: { query } })) as CallToolResult;
        const answer = JSON.parse((result.content[0] as { text: string }).text) as { note?: string; results: { path: string }[] };
        return { note: answer.note, best: answer.results[0]?.path ?? '' };
      } finally {
        await client.close();
        await cleanup();
        await runtime.close();
      }
    }

    it("says, when nothing matches well on this service's own API, that the platform is this service and how to connect the real one", async () => {
      const weak = await searchNote({}, 'list devices at site ams1');
      expect(weak.note).to.include("the platform is this AI Ops service's own API");
      expect(weak.note).to.include(CONNECT_PLATFORM);
      const strong = await searchNote({}, 'list llm models');
      expect(strong.best).to.equal('/api/plugins/ai-ops/llm-models/');
      expect(strong.note ?? '').not.to.include('own API');
    });

    it('says nothing of the kind on an external platform', async () => {
      const answer = await searchNote({ PLATFORM_URL_LOCAL: nautobot.url, PLATFORM_TOKEN: TOKEN }, 'which llm model answers chats');
      expect(answer.note ?? '').not.to.include('own API');
    });
  });
});
