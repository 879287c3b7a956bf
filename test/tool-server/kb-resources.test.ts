import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildPlatformToolServer, type PlatformToolServer } from '../../src/roles/mcp.js';
import { RESOURCE_PAGE_SIZE } from '../../src/tool-server/resources.js';
import { OPERATOR_WRITER } from '../../src/knowledge/repository-admission.js';
import { createServer } from '../../src/tool-server/server.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';
import { createRemote } from '../knowledge/support/git-remote.js';

/** Paragraphs enough for several chunks of KB_CHUNK_MAX_CHARS=300, each split section repeating the end of the one before. */
const GUIDE = [
  '# Racks',
  '',
  ...Array.from(
    { length: 12 },
    (_, i) => `Paragraph ${i}: a rack holds devices by unit, counted from the bottom (${'u'.repeat(i * 3)}).\n`,
  ),
  '## Cables',
  '',
  'Cables join two interfaces; a trace follows them from end to end.',
  '',
].join('\n');
const SCRIPT = [
  'def rack_units(rack):',
  '    """Units of a rack."""',
  '    return rack.u_height',
  '',
  '',
  'class Rack:',
  '    pass',
  '',
].join('\n');
const NOTES = 'Notes kept in a file whose name has a space.\n';

describe("The tool server offers the knowledge base's documents as resources", function () {
  this.timeout(120_000);
  let root: string;
  let platform: StubPlatform;
  let runtime: PlatformToolServer;
  let client: Client;
  let cleanup: () => Promise<void>;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-resources-'));
    // A platform with several pages of operations, so the documents come on a later page.
    platform = await startStubPlatform(fixture('nautobot-openapi.json'));
    const remote = createRemote(root, 'acme/docs', { 'docs/guide.md': GUIDE, 'src/racks.py': SCRIPT, 'docs/my notes.md': NOTES });
    runtime = await buildPlatformToolServer(
      loadConfig({
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: 'nbtoken-0123456789abcdef',
        GIT_BASE_URL: remote.baseUrl,
        EMBEDDING_MODEL: 'none',
        KB_CHUNK_MAX_CHARS: '300',
        KB_CHUNK_OVERLAP_CHARS: '120',
        KB_JOB_WAIT_S: '60',
        DATA_DIR: path.join(root, 'data'),
      }),
      silentLogger(),
    );
    await runtime.deps.knowledge.register({ repo: 'acme/docs', file_patterns: ['.md', '.py'] }, OPERATOR_WRITER);
    const [outcome] = await runtime.deps.knowledge.update({ force: false, repository: 'acme/docs' });
    expect(outcome?.error).to.equal(undefined);
    const server = createServer(runtime.deps, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'host', version: '1' });
    await server.server.connect(serverSide);
    await client.connect(clientSide);
    cleanup = async () => (await client.close(), await server.cleanup());
  });
  after(async () => {
    await cleanup?.();
    await runtime?.close();
    await platform?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const everyResource = async (): Promise<Resource[]> => {
    const all: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      expect(page.resources.length).to.be.within(1, RESOURCE_PAGE_SIZE);
      all.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  };
  const failure = (uri: string) =>
    client.readResource({ uri }).then(
      () => expect.fail(`${uri} should not be read`),
      (error: unknown) => error as McpError,
    );

  it('lists the indexed files after the operations, in the same pages, with a template', async () => {
    const all = await everyResource();
    const uris = all.map((resource) => resource.uri);
    expect(new Set(uris).size).to.equal(uris.length);
    const documents = uris.filter((uri) => uri.startsWith('kb://'));
    expect(documents).to.deep.equal(['kb://acme/docs/docs/guide.md', 'kb://acme/docs/docs/my%20notes.md', 'kb://acme/docs/src/racks.py']);
    expect(uris.findIndex((uri) => uri.startsWith('kb://'))).to.equal(uris.length - 3);
    expect(uris.length, 'operations come first, over more than one page').to.be.greaterThan(RESOURCE_PAGE_SIZE);
    expect(all.find((resource) => resource.uri === documents[0])).to.include({ name: 'docs/guide.md', mimeType: 'text/markdown' });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).to.include('kb://{owner}/{name}/{+path}');
  });

  it("reads a file as its text, the chunks' overlap removed", async () => {
    const guide = (await everyResource()).find((resource) => resource.uri === 'kb://acme/docs/docs/guide.md')!;
    expect(Number(/\((\d+) chunks\)/.exec(guide.description ?? '')?.[1]), 'the guide is split').to.be.greaterThan(2);
    const manifest = await runtime.deps.knowledge.documents();
    expect(manifest.find((document) => document.path === 'docs/guide.md')!.chunks).to.be.greaterThan(2);
    for (const [uri, text] of [
      ['kb://acme/docs/docs/guide.md', GUIDE],
      ['kb://acme/docs/src/racks.py', SCRIPT],
      ['kb://acme/docs/docs/my%20notes.md', NOTES],
    ] as const) {
      const { contents } = await client.readResource({ uri });
      expect(contents).to.have.length(1);
      expect(contents[0]).to.include({ uri });
      expect((contents[0] as { text: string }).text).to.equal(text.trimEnd());
    }
  });

  it('answers a path outside the manifest, or a repository not in the knowledge base, with -32602', async () => {
    for (const uri of [
      'kb://acme/docs/docs/missing.md',
      'kb://acme/docs/docs',
      'kb://acme/other/docs/guide.md',
      'kb://acme/docs/%E0%A4%A.md',
    ]) {
      const error = await failure(uri);
      expect(error, uri).to.be.instanceOf(McpError);
      expect(error.code, uri).to.equal(ErrorCode.InvalidParams);
      expect(error.message, uri).to.include('Resource not found');
    }
  });
});
