import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SETTING_NAMES } from '../../src/roles/config.js';
import { packagePath } from '../../src/kernel/package-root.js';

/**
 * The environment of a process the suite starts: this one's without any setting of the service (a
 * REDIS_URL or DATA_DIR exported in the shell names a service the tests did not start), with the
 * loopback guard loaded (support/loopback-guard.mjs), then `env`.
 */
export function suiteEnvironment(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const own = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SETTING_NAMES.includes(name)));
  const guard = `--import=${pathToFileURL(packagePath('test/support/loopback-guard.mjs')).href}`;
  return { ...own, NODE_OPTIONS: [process.env.NODE_OPTIONS, guard].filter(Boolean).join(' '), ...env };
}

/**
 * For a command whose test means "no service runs on this machine" (REDIS_URL unset, nothing at the
 * default address): the default addresses are refused for it, even where a test stands a service
 * of its own there (AIOPS_TEST_SERVICE_PORTS, see support/loopback-guard.mjs).
 */
export const NO_SERVICE_ON_DEFAULTS = { REDIS_URL: '', AIOPS_TEST_SERVICE_PORTS: '' } as const;

let emptyFolder: string | undefined;

/**
 * Where a command runs unless its test says otherwise: an empty folder of this process's own, not the
 * project, whose `.env` and `./data` are those of a service started there (as the README starts it).
 */
function defaultWorkingDirectory(): string {
  if (!emptyFolder) {
    const folder = mkdtempSync(path.join(tmpdir(), 'aiops-cwd-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    emptyFolder = folder;
  }
  return emptyFolder;
}

export interface RunningProcess {
  child: ChildProcess;
  /** Everything written to stdout so far, split into lines. */
  lines: string[];
  /** Resolves with the first line matching `pattern` (or rejects after `timeoutMs`). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves when the process has exited, with its exit code or signal. */
  exited: Promise<number | NodeJS.Signals | null>;
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

/** Spawns a program (in `cwd`, an empty folder by default) and collects its output lines (stdout and stderr). */
export function startProcess(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  cwd = defaultWorkingDirectory(),
): RunningProcess {
  const child = spawn(command, args, { cwd, env: suiteEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal));
    // A program that could not be started (not installed) never exits: its error is its last line.
    child.once('error', (error) => {
      lines.push(`could not start ${command}: ${error.message}`);
      if (child.pid === undefined) resolve(null);
    });
  });
  /** Every line is in: the output streams have closed, or the program never started. */
  const outputClosed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
  return {
    child,
    lines,
    exited,
    waitForLine(pattern, timeoutMs = 20_000) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.slice(-20).join('\n')}`)),
          timeoutMs,
        );
        // A process that has ended will print nothing more: say so at once.
        void outputClosed.then(async () => {
          clearTimeout(timer);
          reject(new Error(`${command} ended (${await exited}) with no line matching ${pattern}:\n${lines.slice(-20).join('\n')}`));
        });
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * `node` arguments that run `aiops ARGS` as an operator does: `bin/aiops.js` over `dist/`, which
 * the integration tier's setup (support/integration-tier.ts) keeps as new as the sources.
 */
export function aiopsArgs(args: string[]): string[] {
  return [packagePath('bin/aiops.js'), ...args];
}

/**
 * A host's transport to `aiops mcp` spawned over stdio (in `cwd`, an empty folder by default), as a
 * host starts it: with PATH and the settings in `env` only. `stderr: 'pipe'` to read its logs.
 */
export function aiopsMcpOverStdio(
  env: Record<string, string>,
  { cwd = defaultWorkingDirectory(), stderr = 'ignore' }: { cwd?: string; stderr?: 'pipe' | 'ignore' } = {},
): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: aiopsArgs(['mcp']),
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr,
  });
}

/** What a command printed and how it ended. */
export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `aiops ARGS` to its end (in `cwd`, an empty folder by default), with `env` over the suite's environment. */
export function runAiops(args: string[], env: Record<string, string> = {}, cwd = defaultWorkingDirectory()): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, aiopsArgs(args), { cwd, env: suiteEnvironment(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The `aiops` CLI (in `cwd`, an empty folder by default). */
export function startAiops(args: string[], env: Record<string, string> = {}, cwd?: string): RunningProcess {
  return startProcess(process.execPath, aiopsArgs(args), env, cwd);
}
