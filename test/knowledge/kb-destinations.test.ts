import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { PermissionDeniedError, UpstreamError, ValidationError } from '../../src/kernel/errors.js';
import { OutboundPolicy } from '../../src/kernel/http/outbound-policy.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { SimpleGitSource } from '../../src/knowledge/adapters/simple-git.adapter.js';
import { OPERATOR_WRITER } from '../../src/knowledge/repository-admission.js';
import type { KnowledgeBase } from '../../src/knowledge/knowledge-base.service.js';
import { buildKnowledgeParts, knowledgeBase, type KnowledgeParts } from '../../src/knowledge/knowledge.wiring.js';
import { createRemote } from './support/git-remote.js';
import { startGitHttpServer, type GitHttpServer } from './support/git-http-server.js';

const TOKEN = 'glpat-DestinationToken0123456789';
const USER = { superuser: false };

/**
 * What git is given at each run, whatever the list holds: an entry stored in the `<transport>::`
 * form before it was refused, a local folder later replaced by a link out of KB_LOCAL_ROOTS, and
 * git's words for a repository no superuser vouched for. Index runs in this process, real git.
 */
describe('Knowledge-base destinations checked before each fetch (real git, in process)', function () {
  this.timeout(60_000);
  let root: string;
  let roots: string;
  let server: GitHttpServer;
  let parts: KnowledgeParts;
  let kb: KnowledgeBase;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-destinations-'));
    roots = path.join(root, 'remotes');
    createRemote(root, 'net/docs', { 'README.md': '# Runbooks\n\nThe core routers are drained before maintenance.\n' });
    createRemote(root, 'net/swap', { 'README.md': '# Inside\n\nVLAN 120 carries out-of-band management.\n' });
    // A repository outside KB_LOCAL_ROOTS, which no entry may lead to.
    createRemote(path.join(root, 'outside'), 'far/secret', { 'README.md': '# Outside\n\nZebracorn passphrases live here.\n' });
    server = await startGitHttpServer(roots, TOKEN);
    const config = loadConfig({ EMBEDDING_MODEL: 'none', KB_OFFICIAL_REPOS: 'false', KB_LOCAL_ROOTS: roots });
    // Loopback allowed, as OUTBOUND_ALLOW may: the checks pass, and what git says is still kept from a non-superuser.
    parts = await buildKnowledgeParts(config.knowledge, {
      dataDir: path.join(root, 'data'),
      logger: silentLogger(),
      outbound: OutboundPolicy.fromList(['127.0.0.1']),
    });
    kb = knowledgeBase(parts, silentLogger());
  });
  after(async () => {
    await parts?.close();
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('refuses an entry stored in the <transport>::<address> form at its run, before git reaches the address inside', async () => {
    await parts.lists.add({ name: 'net/helper', url: `https::${server.baseUrl}/net/docs.git`, trusted: false });
    const before = server.authorizations.length;
    const error = await kb.index('net/helper', { force: false }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ValidationError);
    expect(JSON.stringify((error as ValidationError).fields)).to.match(/<transport>::<address>/);
    expect(server.authorizations.length).to.equal(before);
  });

  it('has the git adapter refuse a remote helper, whoever gives it the URL', async () => {
    const git = new SimpleGitSource({ timeoutMs: 30_000 });
    const before = server.authorizations.length;
    for (const url of [`https::${server.baseUrl}/net/docs.git`, `ext::git --version`, `fd::3`]) {
      const error = await git
        .sync({ url, branch: 'HEAD', dir: path.join(root, 'direct'), credential: { kind: 'token', token: TOKEN } })
        .catch((e: unknown) => e);
      expect(error, url).to.be.instanceOf(ValidationError);
    }
    expect(server.authorizations.length).to.equal(before);
  });

  it('has git connect to the addresses a name was checked at, whatever the name resolves to by then', async () => {
    const git = new SimpleGitSource({ timeoutMs: 30_000 });
    const port = new URL(server.baseUrl).port;
    // A name that resolves nowhere: git reaches the server only through the resolve entry it is given.
    const result = await git.sync({
      url: `http://git.pinned.invalid:${port}/net/docs.git`,
      branch: 'HEAD',
      dir: path.join(root, 'pinned'),
      credential: { kind: 'token', token: TOKEN },
      noRedirects: true,
      resolve: `git.pinned.invalid:${port}:127.0.0.1`,
    });
    expect(result.commit).to.match(/^[0-9a-f]{40}$/);
  });

  it("keeps git's words out of a failed run of a repository a non-superuser added, even at an allowed address", async () => {
    await kb.register({ repo: `${server.baseUrl}/net/missing.git`, name: 'net/missing' }, USER);
    const error = await kb.index('net/missing', { force: false }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UpstreamError);
    expect((error as Error).message).to.equal("git could not fetch net/missing from its URL (the index worker's log has git's own words)");
    const status = (await kb.status()).repositories.find((r) => r.name === 'net/missing');
    expect(status).to.include({ status: 'failed', error: (error as Error).message });
  });

  it('checks a local folder against KB_LOCAL_ROOTS at every run: one replaced by a link to a repository outside is refused', async () => {
    const folder = path.join(roots, 'net', 'swap.git');
    await kb.register({ repo: folder, name: 'net/swap', branch: 'main' }, USER);
    expect((await kb.index('net/swap', { force: false })).documents).to.be.greaterThan(0);
    await rm(folder, { recursive: true, force: true });
    await symlink(path.join(root, 'outside', 'remotes', 'far', 'secret.git'), folder);
    const error = await kb.index('net/swap', { force: true }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(PermissionDeniedError);
    expect((error as Error).message).to.match(/KB_LOCAL_ROOTS/);
    expect((await kb.search('zebracorn passphrases', 5, false)).results.map((hit) => hit.content).join('\n')).to.not.match(/Zebracorn/);
  });

  it('refuses a folder that does not exist when it is added, and one made a link out of the roots before its first run', async () => {
    const later = path.join(roots, 'net', 'later.git');
    const missing = await kb.register({ repo: later, name: 'net/later' }, OPERATOR_WRITER).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(ValidationError);
    expect(JSON.stringify((missing as ValidationError).fields)).to.include('is not a folder on this machine');
    // Had it been listed (as before this rule), the link made afterwards still leads nowhere.
    await parts.lists.add({ name: 'net/later', url: `file://${later}`, branch: 'main' });
    await symlink(path.join(root, 'outside', 'remotes', 'far', 'secret.git'), later);
    expect(await kb.index('net/later', { force: false }).catch((e: unknown) => e)).to.be.instanceOf(PermissionDeniedError);
  });
});
