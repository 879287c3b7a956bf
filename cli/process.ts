import { readFileSync } from 'node:fs';
import type { Logger } from '../shared/logging/logger.js';
import { packagePath } from '../shared/package-root.js';

export const VERSION = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

/** Signals within this long of the first are echoes of it: npx forwards the Ctrl-C the terminal also sent us. */
const SIGNAL_ECHO_MS = 1_000;

/**
 * Resolves on the first SIGINT or SIGTERM. Its echoes are ignored (without a listener, Node would
 * die of them at once, mid-shutdown); a signal sent later (Ctrl-C again) ends the process at once.
 */
export function untilSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: number | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      if (first === undefined) {
        first = Date.now();
        logger.info('shutting down', { signal });
        resolve(signal);
      } else if (Date.now() - first > SIGNAL_ECHO_MS) {
        logger.warn('signalled again: stopping at once', { signal });
        process.exit(signal === 'SIGINT' ? 130 : 143);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
