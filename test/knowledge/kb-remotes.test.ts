import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { OPERATOR_WRITER } from '../../src/knowledge/repository-admission.js';
import { buildKnowledgeParts, knowledgeBase } from '../../src/knowledge/knowledge.wiring.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { until } from '../support/until.js';
import { createRemote } from './support/git-remote.js';
import { startGitHttpServer, type GitHttpServer } from './support/git-http-server.js';

const TOKEN = 'glpat-RepositoryToken0123456789';
const TOKEN_VARIABLE = 'AIOPS_TEST_KB_GIT_TOKEN';
const REPOS = '/api/plugins/ai-ops/kb/repos/';

/**
 * Repositories by URL through the API and an index worker: a private repository over smart HTTP
 * with its token in a secret, a local folder under KB_LOCAL_ROOTS, and what is refused to whom.
 */
describe('Knowledge-base repositories by URL (API and an index worker)', function () {
  this.timeout(60_000);
  let root: string;
  let roots: string;
  let api: TestApi;
  let workers: RunningWorkers;
  let server: GitHttpServer;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-remotes-'));
    // The bare repositories lie under the folder KB_LOCAL_ROOTS lists: `remotes/`.
    createRemote(root, 'net/private', { 'README.md': '# Private runbooks\n\nHow the core routers are drained before maintenance.\n' });
    createRemote(root, 'net/local', { 'docs/vlans.md': '# VLANs\n\nVLAN 120 carries the out-of-band management network.\n' });
    roots = path.join(root, 'remotes');
    server = await startGitHttpServer(roots, TOKEN);
    process.env[TOKEN_VARIABLE] = TOKEN;
    const env = { DATA_DIR: path.join(root, 'data'), KB_LOCAL_ROOTS: roots, EMBEDDING_MODEL: 'none', KB_OFFICIAL_REPOS: 'false' };
    // Loopback is internal: only a superuser may point a repository there.
    api = await startTestApi(undefined, { ...env, OUTBOUND_ALLOW: '' });
    workers = await startWorkers(loadConfig({ ...env, REDIS_URL: api.redis.url, REDIS_KEY_PREFIX: api.keyPrefix }), silentLogger(), {
      queues: [QueueName.Index],
    });
    await workers.ready();
    const secret = await api.call('POST', '/api/extras/secrets/', {
      body: { name: 'gitlab-token', provider: 'environment-variable', parameters: { variable: TOKEN_VARIABLE } },
    });
    expect(secret.status, JSON.stringify(secret.body)).to.equal(201);
  });
  after(async () => {
    delete process.env[TOKEN_VARIABLE];
    await workers?.close();
    await api?.close();
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  async function statusOf(name: string, done: (entry: { status: string }) => boolean): Promise<Record<string, unknown>> {
    let entry: Record<string, unknown> | undefined;
    await until(
      async () => {
        const status = await api.call('GET', '/api/plugins/ai-ops/kb/status/');
        entry = status.body.repositories.find((r: { name: string }) => r.name === name);
        return entry !== undefined && done(entry as { status: string });
      },
      20_000,
      `${name} to be indexed or to fail`,
    );
    return entry!;
  }

  it("indexes a private repository over smart HTTP with its secret's token, sent to that remote only", async () => {
    const url = `${server.baseUrl}/net/private.git`;
    const added = await api.call('POST', REPOS, { body: { url, name: 'net/private', secret: 'gitlab-token' } });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect(added.body).to.include({ name: 'net/private', url, secret: 'gitlab-token', branch: 'HEAD', source: 'user' });
    expect(added.body).to.not.have.property('trusted');
    const entry = await statusOf('net/private', ({ status }) => status !== 'not_indexed' && status !== 'indexing');
    expect(entry, JSON.stringify(entry)).to.include({ status: 'indexed' });
    expect(server.authorizations).to.include(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
    const config = await readFile(path.join(root, 'data', 'repos', 'net', 'private', '.git', 'config'), 'utf8');
    expect(config).to.include(url).and.not.include(TOKEN);
    const listed = await api.call('GET', REPOS);
    expect(listed.body.results.find((r: { name: string }) => r.name === 'net/private')).to.include({ url, secret: 'gitlab-token' });
    // The repository sends the secret of that name: the secret is kept, as for a model or a server.
    const secrets = await api.call('GET', '/api/extras/secrets/?name=gitlab-token');
    const deleted = await api.call('DELETE', `/api/extras/secrets/${secrets.body.results[0].id as string}/`);
    expect(deleted.status).to.equal(409);
    expect(deleted.body.detail).to.include('knowledge-base repository net/private');
  });

  it("keeps git's own words out of the status of a repository at an internal address: they would tell what answers there", async () => {
    const added = await api.call('POST', REPOS, { body: { url: `${server.baseUrl}/net/missing.git`, secret: 'gitlab-token' } });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect(added.body.name).to.equal('net/missing');
    const entry = await statusOf('net/missing', ({ status }) => status === 'failed');
    expect(entry.error).to.equal("git could not fetch net/missing from its URL (the index worker's log has git's own words)");
    const key = await api.token({ permissions: ['ai_ops.view_kb'] });
    const seen = await api.call('GET', '/api/plugins/ai-ops/kb/status/', { key });
    expect(JSON.stringify(seen.body)).to.not.match(/fatal|not found|127\.0\.0\.1/);
  });

  it('indexes a local folder under KB_LOCAL_ROOTS, added by a user short of superuser', async () => {
    const key = await api.token({ permissions: ['ai_ops.view_kb', 'ai_ops.change_kb'] });
    const folder = path.join(roots, 'net', 'local.git');
    const added = await api.call('POST', REPOS, { key, body: { url: folder, branch: 'main' } });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect(added.body).to.include({ name: 'net/local', url: `file://${folder}`, branch: 'main' });
    expect(await statusOf('net/local', ({ status }) => status === 'indexed' || status === 'failed')).to.include({ status: 'indexed' });
  });

  it('refuses a folder outside KB_LOCAL_ROOTS, a secret or an internal host named by a user short of superuser', async () => {
    const key = await api.token({ permissions: ['ai_ops.view_kb', 'ai_ops.change_kb'] });
    const etc = await api.call('POST', REPOS, { key: api.adminKey, body: { url: 'file:///etc', name: 'host/etc' } });
    expect(etc.status).to.equal(403);
    expect(etc.body.detail).to.match(/KB_LOCAL_ROOTS/);
    const secret = await api.call('POST', REPOS, {
      key,
      body: { url: 'https://git.example.com/net/private.git', secret: 'gitlab-token' },
    });
    expect(secret.status).to.equal(403);
    expect(secret.body.detail).to.match(/only a superuser may name a secret/);
    const internal = await api.call('POST', REPOS, { key, body: { url: `${server.baseUrl}/net/private.git`, name: 'net/sneaky' } });
    expect(internal.status).to.equal(403);
    expect(internal.body.detail).to.match(/internal address/);
    const names = (await api.call('GET', REPOS)).body.results.map((r: { name: string }) => r.name);
    for (const name of ['host/etc', 'private/private', 'net/sneaky']) expect(names).to.not.include(name);
  });

  it('refuses <transport>::<address> to everyone, so that git never fetches the internal address inside it', async () => {
    const key = await api.token({ permissions: ['ai_ops.view_kb', 'ai_ops.change_kb'] });
    const before = server.authorizations.length;
    for (const url of [
      `https::${server.baseUrl}/net/private.git`,
      `http::${server.baseUrl}/net/private.git`,
      'HTTPS::http://169.254.169.254/a.git',
    ]) {
      for (const caller of [key, api.adminKey]) {
        const added = await api.call('POST', REPOS, { key: caller, body: { url, name: 'net/helper' } });
        expect(added.status, `${url}: ${JSON.stringify(added.body)}`).to.equal(400);
        expect(added.body.url[0]).to.match(/<transport>::<address>/);
      }
    }
    expect((await api.call('GET', REPOS)).body.results.map((r: { name: string }) => r.name)).to.not.include('net/helper');
    expect(server.authorizations.length).to.equal(before);
  });

  it('answers a repository in no accepted form with a 400 that lists the forms', async () => {
    const bad = await api.call('POST', REPOS, { body: { url: 'ext::sh -c id' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.url[0]).to.match(
      /owner\/name .*https:\/\/host\/group\/name\.git.*ssh:\/\/.*user@host:group\/name\.git.*KB_LOCAL_ROOTS/,
    );
    expect((await api.call('POST', REPOS, { body: { description: 'no repository' } })).status).to.equal(400);
  });
});

/**
 * ssh:// and git's user@host:path with an SSH key from a secret. No sshd here: an `ssh` first on
 * PATH stands in for one, checking the key it is given and running git's command locally.
 */
describe('Knowledge-base repositories over ssh (a stand-in ssh)', function () {
  this.timeout(30_000);
  const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-test-key\n-----END OPENSSH PRIVATE KEY-----';
  let root: string;
  let bareDir: string;
  let log: string;
  let path_: string | undefined;

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-kb-ssh-'));
    bareDir = createRemote(root, 'net/ssh-docs', { 'README.md': '# Over ssh\n\nBGP sessions are reset softly.\n' }).bareDir;
    const bin = path.join(root, 'bin');
    log = path.join(root, 'ssh.log');
    await mkdir(bin);
    // Records its arguments, the key file's mode and content, then runs the remote command (the last argument) here.
    const script = `#!/bin/sh
key=""
while [ $# -gt 1 ]; do
  if [ "$1" = "-i" ]; then key="$2"; fi
  echo "arg $1" >> '${log}'
  shift
done
echo "key $key $(stat -c %a "$key") $(tr '\\n' '|' < "$key")" >> '${log}'
exec sh -c "$1"
`;
    await writeFile(path.join(bin, 'ssh'), script);
    await chmod(path.join(bin, 'ssh'), 0o755);
    path_ = process.env.PATH;
    process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  });
  after(async () => {
    process.env.PATH = path_;
    await rm(root, { recursive: true, force: true });
  });

  it('clones ssh:// and user@host:path remotes with the key of the secret, in batch mode, and keeps no key file', async () => {
    const parts = await buildKnowledgeParts(loadConfig({ EMBEDDING_MODEL: 'none', KB_OFFICIAL_REPOS: 'false' }).knowledge, {
      dataDir: path.join(root, 'data'),
      logger: silentLogger(),
      secrets: { resolve: async (name) => (name === 'deploy-key' ? KEY : Promise.reject(new Error(`no secret ${name}`))) },
    });
    const kb = knowledgeBase(parts, silentLogger());
    await kb.register({ repo: `ssh://git@git.example.test${bareDir}`, secret: 'deploy-key' }, OPERATOR_WRITER);
    await kb.register({ repo: `git@git.example.test:${bareDir}`, name: 'net/scp-docs', secret: 'deploy-key' }, OPERATOR_WRITER);
    for (const name of ['net/ssh-docs', 'net/scp-docs']) {
      const result = await kb.index(name, { force: false });
      expect(result.documents, name).to.be.greaterThan(0);
    }
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).to.include.members(['arg BatchMode=yes', 'arg StrictHostKeyChecking=accept-new', 'arg IdentitiesOnly=yes']);
    const keys = lines.filter((line) => line.startsWith('key '));
    expect(keys).to.have.length(2);
    for (const line of keys) {
      const [, file, mode, content] = /^key (\S+) (\d+) (.*)$/.exec(line)!;
      expect(mode).to.equal('600');
      expect(content).to.equal(`${KEY.replaceAll('\n', '|')}|`);
      expect(
        await stat(file!).then(
          () => 'kept',
          () => 'removed',
        ),
      ).to.equal('removed');
    }
  });
});
