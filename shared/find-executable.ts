import { existsSync } from 'node:fs';
import path from 'node:path';

/** The path of `program` as a shell would find it (a path with a slash is taken as is), if it is there. */
export function findExecutable(program: string): string | undefined {
  if (program.includes('/')) return existsSync(program) ? program : undefined;
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, program))
    .find((candidate) => existsSync(candidate));
}
