import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import { UnavailableError } from '../../kernel/errors.js';
import type { KnowledgeLocks, LockRequest, ReleaseLock } from '../locks.port.js';

const POLL_MS = 100;

/**
 * Knowledge-base locks for the processes of one machine (or one shared folder): proper-lockfile's
 * lock directories under `dir`. The holder refreshes the directory's time every `staleMs / 2`;
 * a lock not refreshed for `staleMs` (its holder was killed) is taken over.
 */
export class FileLocks implements KnowledgeLocks {
  constructor(
    private readonly dir: string,
    private readonly staleMs = 10_000,
  ) {}

  /** The lock is the directory `<file>.lock`; the file itself need not exist. */
  private file(name: string): string {
    return path.join(this.dir, encodeURIComponent(name));
  }

  async acquire(name: string, { waitMs, signal }: LockRequest): Promise<ReleaseLock> {
    await mkdir(this.dir, { recursive: true });
    const file = this.file(name);
    let takenOver: Error | undefined;
    const options = { realpath: false, stale: this.staleMs, onCompromised: (error: Error) => (takenOver = error) };
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const release = await lockfile.lock(file, options);
        return async () => {
          if (takenOver) throw new UnavailableError(`the lock of ${name} was taken over while held (${takenOver.message})`);
          await release();
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      }
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new UnavailableError('cancelled');
      if (Date.now() >= deadline) {
        throw new UnavailableError(`${name} is locked by another run`, {
          remedy: 'Another run is working on it: wait for it to finish (its status shows the progress) and retry.',
        });
      }
      await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
    }
  }

  held(name: string): Promise<boolean> {
    return lockfile.check(this.file(name), { realpath: false, stale: this.staleMs });
  }
}
