import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SimpleGitSource } from '../../src/knowledge/adapters/simple-git.adapter.js';
import { createRemote } from '../knowledge/support/git-remote.js';
import { startGitHttpServer, type GitHttpServer } from '../knowledge/support/git-http-server.js';

const TOKEN = 'ghp_RedirectToken0123456789abcdef';

// Finding 4 of the least-privilege audit: Git sent GIT_TOKEN to another host after a 301 from the remote.
describe('security: GIT_TOKEN goes to the configured base only', () => {
  let root: string;
  let other: GitHttpServer;
  let base: http.Server;
  let baseUrl: string;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-git-redirect-'));
    createRemote(root, 'acme/private', { 'README.md': '# Private\n' });
    // The other host would serve the repository to whoever brings the token.
    other = await startGitHttpServer(path.join(root, 'remotes'), TOKEN);
    base = http.createServer((req, res) => res.writeHead(301, { location: `${other.baseUrl}${req.url ?? '/'}` }).end());
    await new Promise<void>((resolve) => base.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(base.address() as AddressInfo).port}`;
  });
  after(async () => {
    await other.close();
    await new Promise((resolve) => base.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  it('does not follow a redirect away from the base: the other host never sees the token', async () => {
    const git = new SimpleGitSource({ timeoutMs: 20_000 });
    const credential = { kind: 'token' as const, token: TOKEN };
    const error = await git.sync({ url: `${baseUrl}/acme/private.git`, branch: 'main', dir: path.join(root, 'clone'), credential }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/could not fetch/);
    expect(error?.message).to.not.include(TOKEN);
    expect(other.authorizations.filter(Boolean)).to.deep.equal([]);
  });
});
