import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on every Linux build in use). */
const TICKS_PER_S = 100;

/**
 * Milliseconds of CPU (user and system) another process has used so far, from /proc; undefined
 * where there is no /proc (not Linux) or the process is gone.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces, in parentheses): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}
