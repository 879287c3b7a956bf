import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UnavailableError } from '../errors.js';

const POLL_MS = 100;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An exclusive lock between processes sharing DATA_DIR: a file created with O_EXCL holding the
 * owner's pid. A lock whose owner is gone (killed mid-run) is taken over. Returns the release.
 */
export async function acquireFileLock(file: string, { waitMs, signal }: { waitMs: number; signal?: AbortSignal }): Promise<() => Promise<void>> {
  await mkdir(path.dirname(file), { recursive: true });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && !alive(owner)) {
      await rm(file, { force: true });
      continue;
    }
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new UnavailableError('cancelled');
    if (Date.now() >= deadline) throw new UnavailableError(`${path.basename(file, '.lock')} is locked by another run (pid ${owner || 'unknown'})`);
    await sleep(POLL_MS);
  }
}
