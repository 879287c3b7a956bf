import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { runAiops } from '../support/processes.js';

describe('aiops CLI', function () {
  this.timeout(60_000);
  let sut: TestApi;
  let env: Record<string, string>;

  before(async () => {
    sut = await startTestApi();
    env = { REDIS_URL: sut.redis.url, REDIS_KEY_PREFIX: sut.keyPrefix };
  });
  after(async () => {
    await sut.close();
  });

  it('--help lists every command and exits 0', async () => {
    const run = await runAiops(['--help']);
    expect(run.code).to.equal(0);
    for (const command of ['api', 'start', 'token']) expect(run.stdout).to.match(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('exits 2 with usage on stderr for a bad command, a bad flag or a missing subcommand', async () => {
    for (const args of [['frobnicate'], ['api', '--bogus'], ['api', '--port', 'eighty'], ['token'], ['token', 'create']]) {
      const run = await runAiops(args, env);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stderr, args.join(' ')).to.match(/Usage: aiops/);
      expect(run.stdout, args.join(' ')).to.equal('');
    }
  });

  it('token create prints the key alone; the key works with exactly the given permissions', async () => {
    const run = await runAiops(['token', 'create', '--user', 'netops', '--perm', 'ai_ops.view_llmmodel', '--read-only'], env);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.match(/^[0-9a-f]{40}\n$/);
    const key = run.stdout.trim();
    expect((await sut.call('GET', '/api/plugins/ai-ops/llm-models/', { key })).status).to.equal(200);
    expect((await sut.call('GET', '/api/extras/secrets/', { key })).status).to.equal(403);
    expect((await sut.call('POST', '/api/plugins/ai-ops/llm-models/', { key, body: { name: 'x' } })).status).to.equal(403);
  });

  it('token list shows tokens without keys, and revoke ends one', async () => {
    const created = await runAiops(['token', 'create', '--user', 'ops2', '--superuser', '--expires', '2099-01-01'], env);
    const key = created.stdout.trim();
    const list = await runAiops(['token', 'list', '--json'], env);
    expect(list.code).to.equal(0);
    const tokens = JSON.parse(list.stdout) as { id: string; username: string; expires: string | null; key_hash?: string }[];
    const mine = tokens.find((token) => token.username === 'ops2');
    expect(mine?.expires).to.equal('2099-01-01T00:00:00.000Z');
    expect(list.stdout).to.not.include(key);
    expect(mine).to.not.have.property('key_hash');
    const table = await runAiops(['token', 'list'], env);
    expect(table.stdout).to.match(/^ID\s+USER\s+KEY/m);
    expect(table.stdout).to.include(`…${key.slice(-4)}`);

    const revoked = await runAiops(['token', 'revoke', mine!.id], env);
    expect(revoked.code).to.equal(0);
    expect((await sut.call('GET', '/api/extras/statuses/', { key })).status).to.equal(401);
    const again = await runAiops(['token', 'revoke', mine!.id], env);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/No token/);
  });

  it('audit lists tool calls, filtered, as a table or JSON', async () => {
    const log = new RedisAuditLog(sut.redis.client, { prefix: sut.keyPrefix, retentionMs: 86_400_000 });
    const entry = {
      time: new Date().toISOString(),
      user_id: 'id',
      session_id: 's',
      job_id: 'chat-1',
      server: 'built-in',
      tool: 'platform_dynamic_api_request',
      approval: null,
      duration_ms: 4,
    };
    await log.append({
      ...entry,
      user: 'frank',
      arguments: { method: 'GET', path: '/api/extras/statuses/' },
      outcome: 'ok',
      http_status: 200,
    });
    await log.append({
      ...entry,
      user: 'grace',
      arguments: { method: 'GET', path: '/api/extras/secrets/' },
      outcome: 'error',
      http_status: 403,
    });
    const approval = { decision: 'approved' as const, decided_by: 'id', decided_at: entry.time };
    await log.append({
      ...entry,
      user: 'heidi',
      arguments: { method: 'POST', path: '/api/dcim/devices/' },
      outcome: 'ok',
      http_status: 201,
      approval,
    });
    const json = await runAiops(['audit', '--outcome', 'error', '--json'], env);
    expect(json.code).to.equal(0);
    const page = JSON.parse(json.stdout) as { count: number; results: { user: string; http_status: number }[] };
    expect(page.count).to.equal(1);
    expect(page.results[0]).to.include({ user: 'grace', http_status: 403 });
    const table = await runAiops(['audit', '--user', 'frank'], env);
    expect(table.stdout).to.match(/^TIME\s+USER\s+SERVER\s+TOOL\s+OUTCOME/m);
    expect(table.stdout).to.include('frank').and.include('/api/extras/statuses/').and.not.include('grace');
    expect((await runAiops(['audit', '--outcome', 'maybe'], env)).code).to.equal(2);
    // The asking user decides their own calls: shown by name.
    expect((await runAiops(['audit', '--user', 'heidi'], env)).stdout).to.include('approved by heidi');
  });

  it('refuses unknown permissions and bad dates with exit 2', async () => {
    const perm = await runAiops(['token', 'create', '--user', 'x', '--perm', 'ai_ops.launch_missiles'], env);
    expect(perm.code).to.equal(2);
    expect(perm.stderr).to.match(/Unknown permission ai_ops.launch_missiles/);
    expect((await runAiops(['token', 'create', '--user', 'x', '--expires', 'tomorrow'], env)).code).to.equal(2);
    expect((await runAiops(['token', 'create', '--user', 'x', '--expires', '2001-01-01'], env)).code).to.equal(2);
  });

  it('aiops scheduler, kept for deployments that still start it, says in one line that the workers schedule and exits 0', async () => {
    const run = await runAiops(['scheduler'], env);
    expect(run.code).to.equal(0);
    const lines = `${run.stdout}${run.stderr}`.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(JSON.parse(lines[0]!)).to.include({ level: 'warn', role: 'scheduler' });
    expect(lines[0]).to.match(/periodic jobs are scheduled by the workers/);
  });

  it('says in one line how to get Redis when none is reachable', async () => {
    const run = await runAiops(['token', 'list'], { REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    expect(run.code).to.equal(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^aiops: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+.*redis-server/);
  });

  it('names every bad environment variable at start-up', async () => {
    const run = await runAiops(['token', 'list'], { PORT: 'abc', LOG_LEVEL: 'loud' });
    expect(run.code).to.equal(1);
    expect(run.stderr)
      .to.match(/PORT/)
      .and.to.match(/LOG_LEVEL/);
  });

  it('reads a .env in the working directory before the configuration, for unset or empty variables only', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aiops-dotenv-'));
    try {
      const port = await freePort();
      await writeFile(path.join(dir, '.env'), `REDIS_URL=redis://127.0.0.1:${port}\nLOG_LEVEL=loud\n`);
      const fromFile = await runAiops(['token', 'list'], { REDIS_URL: '', LOG_LEVEL: '' }, dir);
      expect(fromFile.code).to.equal(1);
      expect(fromFile.stderr, 'LOG_LEVEL comes from .env and is checked').to.match(/LOG_LEVEL/);
      const environmentWins = await runAiops(['token', 'list'], { REDIS_URL: '', LOG_LEVEL: 'error' }, dir);
      expect(environmentWins.code).to.equal(1);
      expect(environmentWins.stderr.trim(), 'REDIS_URL comes from .env').to.match(
        new RegExp(`^aiops: cannot reach Redis at redis://127\\.0\\.0\\.1:${port}`),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
