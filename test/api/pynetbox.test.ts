import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { packagePath } from '../../src/kernel/package-root.js';
import type { Permission } from '../../src/records/auth/permissions.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { pythonWith } from '../support/python.js';

const SCRIPT = packagePath('test/api/clients/pynetbox_calls.py');
/** What the script's writer may do: every record permission, without being a superuser. */
const WRITER: Permission[] = ['llmmodel', 'mcpserver'].flatMap((model) =>
  (['view', 'add', 'change', 'delete'] as const).map((action) => `ai_ops.${action}_${model}` as Permission),
);

/**
 * The records API driven by a client no one here wrote: Debian's python3-pynetbox (7.0.0), the
 * SDK network teams use for NetBox (pynautobot, Nautobot's, follows the same conventions; see
 * pynautobot-calls.test.ts). Each scenario of test/api/clients/pynetbox_calls.py checks what it sees
 * through pynetbox's own objects and exceptions.
 */
describe('records API driven by pynetbox', function () {
  this.timeout(60_000);
  let sut: TestApi;
  let python: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    python = pythonWith('pynetbox', 'python3-pynetbox');
    // 60: a bulk write of 60 records fits, and a list of 75 takes two pages at limit=0.
    sut = await startTestApi(undefined, { MAX_PAGE_SIZE: '60', SECRET_ENV_ALLOW: 'ALLOWED_VAR' });
    const writer = await sut.token({ username: 'pynetbox-writer', permissions: [...WRITER, 'extras.view_secret', 'extras.add_secret'] });
    env = { PATH: process.env.PATH, HOME: process.env.HOME, AIOPS_URL: sut.baseUrl, AIOPS_TOKEN: sut.adminKey, AIOPS_WRITER_TOKEN: writer };
  });
  after(async () => {
    await sut?.close();
  });

  /** Runs one scenario and answers what it printed; a failed check fails with the script's traceback. */
  async function scenario(name: string): Promise<Record<string, unknown>> {
    const run = await promisify(execFile)(python, [SCRIPT, name], { env, timeout: 50_000 }).catch(
      (error: { stderr?: string; message: string }) => {
        throw new Error(`pynetbox scenario ${name} failed:\n${error.stderr ?? error.message}`);
      },
    );
    return JSON.parse(run.stdout) as Record<string, unknown>;
  }

  it('creates, reads by id and by name, saves, lists, filters, counts and deletes records', async () => {
    expect(await scenario('crud')).to.deep.equal({ listed: ['pynetbox-model', 'pynetbox-other'], filtered: ['pynetbox-other'] });
  });

  it('lists, reads, creates, updates and deletes every record kind, each record finding its endpoint by its own url', async () => {
    expect(await scenario('every_kind')).to.deep.equal({ statuses: ['Healthy', 'Maintenance', 'Unhealthy', 'Unknown'] });
  });

  it('pages through next links: limit=0 past MAX_PAGE_SIZE, and pages of its own size', async () => {
    expect(await scenario('pages')).to.deep.equal({ count: 75 });
  });

  it('creates, updates and deletes 60 records in bulk', async () => {
    expect(await scenario('bulk')).to.deep.equal({ created: 60, updated: 60 });
  });

  it('reads refusals through pynetbox.RequestError; a refused bulk write changes nothing', async () => {
    const seen = await scenario('errors');
    expect(seen.forbidden).to.match(/only a superuser may make a secret read environment variable REDIS_URL/);
  });

  it('reads the API version, the status, the choices, brief records and the API root', async () => {
    const seen = (await scenario('service')) as { status: Record<string, unknown>; choices: string[] };
    expect(seen.status).to.include({ 'api-version': '2.0', redis: 'ok' });
    expect(seen.choices).to.include.members(['provider']);
  });
});
