import { readFileSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { StartupError } from '../errors.js';
import { isCronExpression } from './setting-checks.js';

/** The validators settings share. */
export const port = z.coerce.number().int().min(1).max(65535);

const CRON_MESSAGE = 'not a cron expression: five fields (minute hour day month weekday), or six with seconds first';
/** A cron pattern the job schedulers read. */
export const cron = z.string().refine(isCronExpression, CRON_MESSAGE);

/** A comma-separated list; blanks dropped. */
export const list = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

export const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'TRUE', 'FALSE', 'True', 'False'])
  .transform((value) => ['true', '1', 'yes'].includes(value.toLowerCase()));

/**
 * One component's settings: the environment variables it reads, each written once with its check
 * and default (`env`), and what it makes of them (`read`: its sections of the configuration). The
 * README's tables are written from these schemas. `renamed`: old names still read (old → current);
 * `problems`: checks across its variables; `fileProblems`: checks of what they name on disk, read
 * from the variables as given.
 */
export interface Settings<S extends z.ZodRawShape, T> {
  env: S;
  read(e: z.output<z.ZodObject<S>>): T;
  renamed?: Readonly<Record<string, keyof S & string>>;
  problems?(e: z.output<z.ZodObject<S>>): string[];
  fileProblems?(given: NodeJS.ProcessEnv): string[];
}

/** Declares one component's settings (a function only so that `read`'s argument is typed from `env`). */
export function settings<S extends z.ZodRawShape, T>(declared: Settings<S, T>): Settings<S, T> {
  return declared;
}

/** The configuration sections `s` reads into. */
export type SectionsOf<X> = X extends Settings<z.ZodRawShape, infer T> ? T : never;

/** The settings of any component (its methods take its own variables: each is read only with its own). */
type AnySettings = Settings<z.ZodRawShape, object>;

export interface LoadOptions {
  /** Also check what the settings name on disk (each component's `fileProblems`). */
  checkFiles?: boolean;
}

/** An empty variable counts as unset (`REDIS_URL=` in a compose file or a `.env`). */
function withoutEmpty(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
}

/**
 * The variables under their current names (a current name set wins over its old one), and the
 * name each was given under, so that a problem names the variable the operator wrote.
 */
function withCurrentNames(
  env: NodeJS.ProcessEnv,
  renamed: Record<string, string>,
): { env: NodeJS.ProcessEnv; givenAs: Map<string, string> } {
  const current = { ...env };
  const givenAs = new Map<string, string>();
  for (const [old, name] of Object.entries(renamed)) {
    const value = current[old];
    delete current[old];
    if (value === undefined || current[name] !== undefined) continue;
    current[name] = value;
    givenAs.set(name, old);
  }
  return { env: current, givenAs };
}

/** One line per problem, each naming its variable: the CLI prints them as they are. */
function invalid(problems: string[]): StartupError {
  return new StartupError(problems.map((problem) => `invalid configuration: ${problem}`).join('\n'));
}

/** Every variable `all` reads, current and old names. */
export function settingNames(all: readonly AnySettings[]): string[] {
  return [...new Set(all.flatMap((one) => [...Object.keys(one.env), ...Object.keys(one.renamed ?? {})]))];
}

/**
 * Parses the environment with every component's settings, once per process: a bad variable fails
 * start-up with every problem named, one line each. The result is every component's sections, with
 * `renamedSettings`: the settings given under an old name, one line each, for the CLI to say.
 */
export function readSettings(
  all: readonly AnySettings[],
  env: NodeJS.ProcessEnv,
  options: LoadOptions = {},
): { renamedSettings: string[] } {
  const renamed = Object.assign({}, ...all.map((one) => one.renamed ?? {})) as Record<string, string>;
  const { env: given, givenAs } = withCurrentNames(withoutEmpty(env), renamed);
  const problems: string[] = [];
  const parsed = all.map((one) => {
    const result = z.object(one.env).safeParse(given);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const name = issue.path.join('.');
        const line = `${givenAs.get(name) ?? name}: ${issue.message}`;
        // A variable two components read (PORT) is reported once.
        if (!problems.includes(line)) problems.push(line);
      }
    }
    return result;
  });
  // Checks across variables once every variable parses, as they read parsed values.
  if (problems.length === 0) {
    parsed.forEach((result, index) => {
      if (result.success) problems.push(...(all[index]!.problems?.(result.data) ?? []));
    });
  }
  if (options.checkFiles) problems.push(...all.flatMap((one) => one.fileProblems?.(given) ?? []));
  if (problems.length > 0) throw invalid(problems);
  return Object.assign(
    { renamedSettings: [...givenAs].map(([name, old]) => `${old} is ${name} now; the old name still works`) },
    // Every one parsed: a failure threw above.
    ...parsed.map((result, index) => all[index]!.read(result.data!)),
  ) as { renamedSettings: string[] };
}

/** The variables of `dir`/.env, none when there is no such file. */
function readDotenv(dir: string): Record<string, string> {
  try {
    return parseDotenv(readFileSync(`${dir}/.env`));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new StartupError(`cannot read .env in ${dir}: ${(error as Error).message}`);
  }
}

/**
 * An optional `.env` in `dir` fills the variables the environment leaves unset (or empty), so that
 * every setting, and a secret's environment variable, can come from either.
 */
export function loadDotenv(dir: string): void {
  for (const [name, value] of Object.entries(readDotenv(dir))) {
    if (!process.env[name]) process.env[name] = value;
  }
}
