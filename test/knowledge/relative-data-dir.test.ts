import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { NO_SERVICE_ON_DEFAULTS, startAiops, type RunningProcess, runAiops, type CommandRun } from '../support/processes.js';
import { createRemote, type TestRemote } from './support/git-remote.js';

/** Every path under `dir`, relative to it. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

/**
 * The knowledge base with the default DATA_DIR (`./data`, relative to where aiops runs), as a
 * newcomer starts it: the clone lands in `data/repos/<owner>/<name>`, nothing is left beside it.
 */
describe('Knowledge base with a relative DATA_DIR', function () {
  this.timeout(90_000);
  let root: string;
  let cwd: string;
  let remote: TestRemote;
  let env: Record<string, string>;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'aiops-relative-data-'));
    cwd = path.join(root, 'service');
    remote = createRemote(root, 'acme/netdocs', {
      'README.md': '# Network docs\n\nHow circuits are handed over to the carrier and who signs the acceptance form.\n',
    });
    // DATA_DIR empty counts as unset: the default, ./data.
    env = { DATA_DIR: '', GIT_BASE_URL: remote.baseUrl, KB_OFFICIAL_REPOS: 'false', EMBEDDING_MODEL: 'none', LOG_LEVEL: 'warn' };
    await mkdir(cwd);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function expectIndexed(run: CommandRun): Promise<void> {
    expect(run.code, run.stderr).to.equal(0);
    expect(existsSync(path.join(cwd, 'data', 'repos', 'acme', 'netdocs', 'README.md'))).to.equal(true);
    const repos = await tree(path.join(cwd, 'data', 'repos'));
    expect(
      repos.filter((entry) => entry.includes('.clone-') || entry.includes(`data${path.sep}repos`)),
      'no clone left beside the repository, none nested',
    ).to.deep.equal([]);
  }

  /** `aiops kb search` finds the README through this machine's lexical index, kept under ./data like the rest. */
  async function expectSearched(settings: Record<string, string>): Promise<void> {
    const search = await runAiops(['kb', 'search', 'who signs the acceptance form', '--json'], settings, cwd);
    expect(search.code, search.stderr).to.equal(0);
    const answer = JSON.parse(search.stdout) as { search_mode: string; results: Array<{ file_path: string }> };
    expect(answer.search_mode).to.equal('lexical');
    expect(answer.results[0]?.file_path).to.equal('README.md');
    expect(existsSync(path.join(cwd, 'data', 'knowledge', 'lexical-index', 'manifest.json'))).to.equal(true);
    expect(await readdir(cwd), 'nothing beside ./data').to.deep.equal(['data']);
  }

  it('aiops kb add and update index into ./data on this machine (no Redis)', async () => {
    // REDIS_URL unset and no service running: the CLI works on this machine's files.
    const local = { ...env, ...NO_SERVICE_ON_DEFAULTS };
    const added = await runAiops(['kb', 'add', 'acme/netdocs'], local, cwd);
    expect(added.code, added.stderr).to.equal(0);
    await expectIndexed(await runAiops(['kb', 'update', 'acme/netdocs'], local, cwd));
    await expectSearched(local);
  });

  it('aiops start and aiops kb index into ./data of the folder aiops start runs in', async () => {
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    const port = await freePort();
    let service: RunningProcess | undefined;
    try {
      // No Redis answers there: aiops start runs its own under ./data/redis.
      service = startAiops(['start', '--port', String(port)], { ...env, REDIS_URL: redisUrl, DRAIN_DELAY_MS: '0', LOG_LEVEL: 'info' }, cwd);
      await service.waitForLine(/"message":"api listening"/, 60_000);
      const withService = { ...env, REDIS_URL: redisUrl };
      const added = await runAiops(['kb', 'add', 'acme/netdocs'], withService, cwd);
      expect(added.code, added.stderr).to.equal(0);
      await expectIndexed(await runAiops(['kb', 'update', 'acme/netdocs'], withService, cwd));
      await expectSearched(withService);
      expect(existsSync(path.join(cwd, 'data', 'redis')), 'the private Redis keeps its files under ./data').to.equal(true);
    } finally {
      await service?.stop();
    }
  });
});
