import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadProcessConfig, type Config } from '../roles/config.js';
import { DomainError, ValidationError } from '../kernel/errors.js';
import type { AuditCommandOptions } from './commands/audit.js';
import type { KbAddOptions, KbSearchOptions } from './commands/kb.js';
import type { TokenCreateOptions } from './commands/token.js';
import type { UsageCommandOptions } from './commands/usage.js';
import type { WorkerCommandOptions } from './commands/worker.js';
import { VERSION } from './process.js';
import { QUEUE_NAMES, type QueueName } from '../roles/job-catalogue.js';

// Each command's module is loaded when that command runs: `aiops --help` or `aiops mcp` do not
// pay for the web server, the queues or the embedding runtime they never use.
const commands = {
  audit: () => import('./commands/audit.js'),
  kb: () => import('./commands/kb.js'),
  mcp: () => import('./commands/mcp.js'),
  platform: () => import('./commands/platform.js'),
  scheduler: () => import('./commands/scheduler.js'),
  serve: () => import('./commands/serve.js'),
  token: () => import('./commands/token.js'),
  usage: () => import('./commands/usage.js'),
  worker: () => import('./commands/worker.js'),
};

/** Which knowledge base `aiops kb` and `aiops mcp` work on (see locateKnowledgeBase), as their help says it. */
const KNOWLEDGE_BASE_WHERE =
  "the service's knowledge base, in the Redis at REDIS_URL (unset: at the default address, when one answers there), " +
  "else this machine's own under DATA_DIR; stderr says which";

/** Exit codes: 0 done, 1 failed, 2 bad usage (unknown command or flag, bad value). */
const USAGE_EXIT = 2;

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return port;
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('a positive integer');
  return number;
}

function queueList(value: string): QueueName[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(QUEUE_NAMES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) throw new InvalidArgumentError(`queues are ${QUEUE_NAMES.join(', ')}`);
  return names as QueueName[];
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function buildProgram(run: (task: (config: Config) => Promise<number>) => void): Command {
  const program = new Command('aiops')
    .description('AI Ops service: records API, queue workers and platform tool server')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  program
    .command('api')
    .description('run the HTTP API (records, auth, status)')
    .option('--port <n>', 'port to listen on (default: PORT or 8080)', portNumber)
    .action((options: { port?: number }) =>
      run(async (config) => (await commands.serve()).serve(config, { role: 'api', port: options.port })),
    );

  program
    .command('start')
    .description('run every role in one process; starts a private Redis when none is reachable')
    .option('--port <n>', 'port to listen on (default: PORT or 8080)', portNumber)
    .action((options: { port?: number }) =>
      run(async (config) => (await commands.serve()).serve(config, { role: 'start', port: options.port })),
    );

  program
    .command('mcp')
    .summary('run the platform tool server (MCP) on stdio, or on Streamable HTTP at /mcp with --http')
    .description(`run the platform tool server (MCP) on stdio, or on Streamable HTTP at /mcp with --http; it uses ${KNOWLEDGE_BASE_WHERE}`)
    .option('--http <port>', 'serve Streamable HTTP on this port (host: HOST) instead of stdio', portNumber)
    .action((options: { http?: number }) => run(async (config) => (await commands.mcp()).runMcp(config, options)));

  program
    .command('worker')
    .description('run queue workers: chat turns, MCP health checks, knowledge-base indexing')
    .option('--queues <names>', `comma-separated queues (default: all: ${QUEUE_NAMES.join(',')})`, queueList)
    .option('--concurrency <n>', 'jobs at once per queue (default: CHAT_WORKER_CONCURRENCY)', positiveInteger)
    .action((options: WorkerCommandOptions) => run(async (config) => (await commands.worker()).runWorker(config, options)));

  program
    .command('scheduler')
    .description('deprecated, does nothing: periodic jobs (HEALTH_CRON, SESSION_CLEANUP_CRON) are scheduled by the workers')
    .action(() => run(async (config) => (await commands.scheduler()).runScheduler(config)));

  const kb = program
    .command('kb')
    .summary('knowledge base: Git repositories indexed for the tool server')
    .description(`knowledge base: Git repositories indexed for the tool server; every kb command uses ${KNOWLEDGE_BASE_WHERE}`);
  kb.command('list')
    .description('list the repositories (official and user-added)')
    .action(() => run(async (config) => (await commands.kb()).kbList(config, process.stdout)));
  kb.command('add')
    .description('add a user repository: owner/name on GIT_BASE_URL, a Git URL, or a local folder under KB_LOCAL_ROOTS')
    .argument(
      '<repo>',
      'owner/name, https://host/group/name.git, ssh://[user@]host[:port]/group/name.git, user@host:group/name.git, or a folder (/path, ./path, file:///path)',
    )
    .option('--name <owner/name>', 'the name to list a URL or folder under (default: its last two path segments)')
    .option('--branch <name>', "branch to index (default: main for owner/name, the remote's default branch for a URL or folder)")
    .option('--secret <name>', 'the secret holding its credential: a token (https) or an SSH private key (ssh); read by the workers')
    .option('--description <text>', 'what the repository is about')
    .action((repo: string, options: KbAddOptions) =>
      run(async (config) => (await commands.kb()).kbAdd(config, repo, options, process.stdout)),
    );
  kb.command('remove')
    .description('remove a user repository with every indexed chunk and its clone')
    .argument('<repo>', 'owner/name')
    .action((repo: string) => run(async (config) => (await commands.kb()).kbRemove(config, repo, process.stdout)));
  kb.command('update')
    .description(
      "clone or pull and re-index changed files: as index jobs of the service's workers when its Redis answers, else in this process",
    )
    .argument('[repo]', 'only this repository (default: every enabled one)')
    .option('--force', 're-index every file')
    .action((repo: string | undefined, options: { force?: boolean }) =>
      run(async (config) => (await commands.kb()).kbUpdate(config, repo, options, process.stdout)),
    );
  kb.command('status')
    .description('per repository: indexed or not, chunks, last indexing, progress')
    .addOption(new Option('--json', 'print JSON'))
    .action((options: { json?: boolean }) => run(async (config) => (await commands.kb()).kbStatus(config, options, process.stdout)));
  kb.command('search')
    .description('search the indexed repositories as the tool platform_kb_semantic_search does: file, lines, score and passage per hit')
    .argument('<question>', 'what you are looking for, in plain words')
    .option('--repo <owner/name>', 'only this repository')
    .option('-n, --results <n>', 'how many hits (default: DEFAULT_SEARCH_RESULTS, 5)', positiveInteger)
    .addOption(new Option('--json', "print the tool's answer as JSON"))
    .action((question: string, options: KbSearchOptions) =>
      run(async (config) => (await commands.kb()).kbSearch(config, question, options, process.stdout)),
    );

  const token = program.command('token').description('create, list and revoke API tokens');
  token
    .command('create')
    .description('create (or update) a user and print a new token key, shown only this once')
    .requiredOption('--user <name>', 'user the token belongs to (created if new)')
    .option('--superuser', 'every permission')
    .option('--perm <permission>', 'a permission, e.g. ai_ops.view_llmmodel (repeatable)', collect)
    .option('--read-only', 'the token can only read')
    .option('--expires <iso8601>', 'expiry date or date-time, e.g. 2027-01-31')
    .option('--description <text>', 'what the token is for')
    .action((options: TokenCreateOptions) => run(async (config) => (await commands.token()).createToken(config, options, process.stdout)));
  token
    .command('list')
    .description('list tokens (never their keys)')
    .addOption(new Option('--json', 'print JSON'))
    .action((options: { json?: boolean }) => run(async (config) => (await commands.token()).listTokens(config, options, process.stdout)));
  token
    .command('revoke')
    .description('revoke a token by id')
    .argument('<id>', 'token id (from `aiops token list`)')
    .action((id: string) => run(async (config) => (await commands.token()).revokeToken(config, id, process.stdout)));

  program
    .command('platform')
    .description('the platform the agent acts on')
    .command('check')
    .description("which platform the agent acts on, whether its OpenAPI description can be read and its operations' count, what to set")
    .addOption(new Option('--json', 'print JSON'))
    .action((options: { json?: boolean }) =>
      run(async (config) => (await commands.platform()).checkPlatformCommand(config, options, process.stdout)),
    );

  program
    .command('audit')
    .description("list the audit log of the agent's tool calls, newest first")
    .option('--user <name>', "only this user's calls (name or id)")
    .option('--tool <name>', 'only calls of this tool')
    .option('--outcome <outcome>', 'only ok, error or declined calls')
    .option('--since <iso8601>', 'only calls at or after this date or date-time')
    .option('--limit <n>', 'at most this many entries (default 50)', positiveInteger)
    .addOption(new Option('--json', 'print JSON'))
    .action((options: AuditCommandOptions) => run(async (config) => (await commands.audit()).listAudit(config, options, process.stdout)));

  program
    .command('usage')
    .description('list the tokens chat turns spent (and their cost) per UTC day, user and model')
    .option('--user <name>', "only this user's usage (name or id)")
    .option('--model <name>', "only this model's usage")
    .option('--since <YYYY-MM-DD>', 'first day (default: 30 days before --until)')
    .option('--until <YYYY-MM-DD>', 'last day (default: today, UTC)')
    .addOption(new Option('--json', 'print JSON'))
    .action((options: UsageCommandOptions) => run(async (config) => (await commands.usage()).listUsage(config, options, process.stdout)));

  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let task: ((config: Config) => Promise<number>) | undefined;
  const program = buildProgram((chosen) => {
    task = chosen;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      const done = ['commander.helpDisplayed', 'commander.version'].includes(error.code);
      return done ? 0 : USAGE_EXIT;
    }
    throw error;
  }
  if (!task) {
    program.outputHelp({ error: true });
    return USAGE_EXIT;
  }
  try {
    const config = loadProcessConfig();
    for (const notice of config.renamedSettings) report(notice);
    // The SDK is loaded only when traces are exported.
    const tracing = config.tracing.endpoint
      ? await (await import('../kernel/tracing/otel-sdk.adapter.js')).startTracing('aiops')
      : undefined;
    try {
      return await task(config);
    } finally {
      await tracing?.shutdown();
    }
  } catch (error) {
    if (error instanceof ValidationError) {
      report(error.message);
      return USAGE_EXIT;
    }
    if (error instanceof DomainError) {
      report(error.message);
      return 1;
    }
    // Not an operator's mistake we know of (a bug, or a failure nothing names yet): still one
    // line on a terminal, the stack only when asked for.
    const failure = error instanceof Error ? error : new Error(String(error));
    report(
      `unexpected failure: ${failure.message}${process.env.LOG_LEVEL === 'debug' ? `\n${failure.stack ?? ''}` : ' (LOG_LEVEL=debug shows where)'}`,
    );
    return 1;
  }
}

/** Each line of a message on stderr, after the command's name. */
function report(message: string): void {
  for (const line of message.split('\n')) process.stderr.write(`aiops: ${line}\n`);
}
