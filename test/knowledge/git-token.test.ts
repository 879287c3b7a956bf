import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import winston from 'winston';
import { SimpleGitSource } from '../../src/knowledge/adapters/simple-git.adapter.js';
import { loadConfig } from '../../src/roles/config.js';
import { buildKnowledgeParts } from '../../src/knowledge/knowledge.wiring.js';
import { createRemote } from './support/git-remote.js';
import { startGitHttpServer, type GitHttpServer } from './support/git-http-server.js';

const TOKEN = 'ghp_TestToken0123456789abcdefXYZ';

/** Every text file under a folder, concatenated (the clone's .git included). */
async function allText(dir: string): Promise<string> {
  let out = '';
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out += await readFile(path.join(entry.parentPath, entry.name), 'latin1');
  }
  return out;
}

describe('Git token handling (loopback smart HTTP)', () => {
  let root: string;
  let server: GitHttpServer;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-token-'));
    createRemote(root, 'acme/private', { 'README.md': '# Private\n\nInternal notes.\n' });
    server = await startGitHttpServer(path.join(root, 'remotes'), TOKEN);
  });
  after(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('sends the token as a header and never writes it to the clone, the logs or errors', async () => {
    const lines: string[] = [];
    const logger = winston.createLogger({
      level: 'debug',
      format: winston.format.json(),
      transports: [
        new winston.transports.Stream({ stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) }),
      ],
    });
    const dataDir = path.join(root, 'data');
    const parts = await buildKnowledgeParts(
      loadConfig({ GIT_BASE_URL: server.baseUrl, GIT_TOKEN: TOKEN, EMBEDDING_MODEL: 'none' }).knowledge,
      { dataDir, logger },
    );
    await parts.lists.add({ name: 'acme/private', branch: 'main' });
    const result = await parts.indexer.index('acme/private');
    expect(result.documents).to.be.greaterThan(0);
    // And again: fetch on an existing clone.
    await parts.indexer.index('acme/private', { force: true });
    expect(server.authorizations.some((auth) => auth.startsWith('Basic '))).to.equal(true);

    const config = await readFile(path.join(parts.layout.clone('acme/private'), '.git', 'config'), 'utf8');
    expect(config).to.include(server.baseUrl).and.not.include(TOKEN);
    const encoded = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    const everything = await allText(dataDir);
    expect(everything).to.not.include(TOKEN);
    expect(everything).to.not.include(encoded);

    // A failing call (unknown branch) produces an error and a log line, neither with the token.
    await parts.lists.add({ name: 'acme/missing', branch: 'main' });
    const error = await parts.indexer.index('acme/missing').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).to.be.instanceOf(Error);
    expect(error!.message).to.not.include(TOKEN).and.not.include(encoded);
    const logs = lines.join('');
    expect(logs).to.include('acme/missing');
    expect(logs).to.not.include(TOKEN);
    expect(logs).to.not.include(encoded);
  });

  it('without the token the remote refuses, and git does not prompt', async () => {
    const git = new SimpleGitSource({ timeoutMs: 20_000 });
    const error = await git.sync({ url: `${server.baseUrl}/acme/private.git`, branch: 'main', dir: path.join(root, 'anon') }).then(
      () => undefined,
      (e: Error) => e,
    );
    // git's own cause, not only its closing advice.
    expect(error?.message).to.match(/could not fetch branch main of .*: fatal: /);
  });
});
