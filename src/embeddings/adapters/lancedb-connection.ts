import { availableParallelism } from 'node:os';
import type { Connection } from '@lancedb/lancedb';

/**
 * Lance runs its CPU work on a pool of `cores - 2` threads (at least one). Building a full-text
 * index, and encoding the pages of a file as it is written, hand work to that pool and wait on it
 * from the pool itself, so a pool of one thread (a machine of two cores or fewer) deadlocks for
 * good once an index outgrows one batch (lancedb issue 3568: a 100,000-row full-text index never
 * finishes on two cores). Two threads more than the cores keep one free for the waiting side; an
 * operator's own LANCE_CPU_THREADS wins. Lance reads it when it first starts the pool, that is at
 * the first write or index build, after this module is loaded.
 */
process.env.LANCE_CPU_THREADS ||= String(availableParallelism() + 2);
/**
 * Lance logs its warnings to stderr in a format of its own ("partition 290 is empty, skipping"),
 * where a tool server's structured log lines go; errors only, unless the operator asks for more.
 * Read when Lance's native module loads: modules that use Lance import this one first, and this
 * one loads Lance only when it connects.
 */
process.env.LANCEDB_LOG ||= 'error';

const MB = 1024 * 1024;

export interface LanceDbCaches {
  /** Bytes of index data (vector partitions, posting lists) kept in memory; Lance's default is 6 GB. */
  indexBytes: number;
  /** Bytes of file metadata kept in memory; Lance's default is 1 GB. */
  metadataBytes?: number;
}

/**
 * Opens the embedded database in `dir` with bounded caches, so that a process's resident memory
 * does not grow with the size of what it searches: what leaves the cache is read again from the
 * files (from the operating system's page cache when it holds them). `everyRead`: each read looks
 * for a newer version of its table, so one process sees what another wrote; otherwise a table
 * handle reads the version it opened until it is opened again (a caller that knows when tables
 * change saves that look-up on every query).
 */
export async function openLanceDb(dir: string, caches: LanceDbCaches, { everyRead }: { everyRead: boolean }): Promise<Connection> {
  const { connect, Session } = await import('@lancedb/lancedb');
  const session = new Session(BigInt(caches.indexBytes), BigInt(caches.metadataBytes ?? 64 * MB));
  return connect(dir, everyRead ? { readConsistencyInterval: 0 } : {}, session);
}

/** A string as a literal of LanceDB's SQL filters. */
export const sqlString = (value: string): string => `'${value.replace(/'/g, "''")}'`;
