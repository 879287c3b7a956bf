import { StartupError } from './errors.js';

const REASONS: Record<string, string> = {
  EADDRINUSE: 'the port is in use by another process',
  EADDRNOTAVAIL: 'this machine has no such address',
  EACCES: 'not allowed (ports below 1024 need privileges)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/** A server that could not listen, as one line naming the address and the setting to change. */
export function listenFailure(error: unknown, what: string, host: string, port: number): StartupError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const reason = REASONS[code] ?? (error instanceof Error ? error.message : String(error));
  return new StartupError(`${what} cannot listen on ${host}:${port}: ${reason} (see HOST and the port setting)`);
}
