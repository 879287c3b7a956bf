import { readFileSync } from 'node:fs';
import type { Logger } from '../kernel/logging/logger.js';
import { packagePath } from '../kernel/package-root.js';

export const VERSION = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

/** The oldest Node.js release line still maintained (package.json's `engines`); the image and CI run Node 24. */
const SUPPORTED_NODE_MAJOR = 22;

/**
 * What a server role logs at start on an older Node.js (`version` as in process.versions.node): it
 * still runs there, so that the README's first commands work on a machine that has Node 20, but
 * that Node gets no more fixes. Undefined on a supported one.
 */
export function oldNodeWarning(version: string): string | undefined {
  if (Number(version.split('.')[0]) >= SUPPORTED_NODE_MAJOR) return undefined;
  return `Node.js ${version} is past its end of life; this service is supported on Node.js ${SUPPORTED_NODE_MAJOR} or newer and runs on 24 in its image and CI (see the README for how to get it)`;
}

/** Logs oldNodeWarning for this process's Node.js, if any. */
export function warnOnOldNode(logger: Logger): void {
  const warning = oldNodeWarning(process.versions.node);
  if (warning) logger.warn(warning, { node: process.versions.node });
}

/** Signals within this long of the first are echoes of it: npx forwards the Ctrl-C the terminal also sent us. */
const SIGNAL_ECHO_MS = 1_000;

/** How long a stop may take past its drain delay and shutdown timeout before it is cut short. */
const STOP_GRACE_MS = 5_000;

/**
 * Resolves on the first SIGINT or SIGTERM. Its echoes are ignored (without a listener, Node would
 * die of them at once, mid-shutdown); a signal sent later (Ctrl-C again) ends the process at once,
 * and so does a stop still running `STOP_GRACE_MS` past `http.drainDelayMs + http.shutdownTimeoutMs`
 * (a close waiting on a Redis that is gone must not keep a supervisor waiting).
 */
export function untilSignal(
  logger: Logger,
  { drainDelayMs, shutdownTimeoutMs }: { drainDelayMs: number; shutdownTimeoutMs: number },
): Promise<NodeJS.Signals> {
  const exitCode = (signal: NodeJS.Signals) => (signal === 'SIGINT' ? 130 : 143);
  return new Promise((resolve) => {
    let first: number | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      if (first === undefined) {
        first = Date.now();
        logger.info('shutting down', { signal });
        const limitMs = drainDelayMs + shutdownTimeoutMs + STOP_GRACE_MS;
        setTimeout(() => {
          logger.warn('still stopping: stopping at once', { signal, waited_ms: limitMs });
          process.exit(exitCode(signal));
        }, limitMs).unref();
        resolve(signal);
      } else if (Date.now() - first > SIGNAL_ECHO_MS) {
        logger.warn('signalled again: stopping at once', { signal });
        process.exit(exitCode(signal));
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
