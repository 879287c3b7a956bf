import { rm } from 'node:fs/promises';
import { readJson, writeJsonAtomic } from './json-file.js';

/** The last or current run of one repository, as the status commands show it. */
export interface IndexState {
  state: 'indexing' | 'indexed' | 'failed';
  files_done: number;
  files_total: number;
  started_at: string;
  updated_at: string;
  finished_at?: string;
  error?: string;
  /** The process running it, so a run of a process that died is not shown as active. */
  pid: number;
  host: string;
  /** From the last finished run: what the index holds. */
  store?: string;
  commit?: string;
  indexed_at?: string;
  documents?: number;
}

/** A run reported as indexing whose process is gone, or that has not moved for this long, is not active. */
const STALE_MS = 10 * 60_000;

export const readIndexState = (file: string): Promise<IndexState | undefined> => readJson<IndexState>(file);
export const writeIndexState = (file: string, state: IndexState): Promise<void> => writeJsonAtomic(file, state);
export const deleteIndexState = (file: string): Promise<void> => rm(file, { force: true });

export function isActive(state: IndexState | undefined, host: string, now = Date.now()): boolean {
  if (state?.state !== 'indexing') return false;
  if (state.host === host) {
    try {
      process.kill(state.pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
    }
  }
  return now - Date.parse(state.updated_at) < STALE_MS;
}
