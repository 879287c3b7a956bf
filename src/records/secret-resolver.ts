import { readFile } from 'node:fs/promises';
import { DomainError } from '../kernel/errors.js';
import type { SecretRecord } from './secret.js';

/** A secret could not be read. The message names the secret and where it should live, never a value. */
export class SecretUnavailableError extends DomainError {
  constructor(
    readonly secretName: string,
    reason: string,
  ) {
    super(`secret '${secretName}' could not be read: ${reason}`);
  }
}

export interface SecretLookup {
  getByName(name: string): Promise<SecretRecord | null>;
}

export interface SecretResolverOptions {
  env?: NodeJS.ProcessEnv;
  readText?: (path: string) => Promise<string>;
}

/**
 * Reads secret values where they live (an environment variable of this process, a text file),
 * at the moment they are needed, in workers only. Nothing is cached, so a rotated key is used
 * on the next turn.
 */
export class SecretResolver {
  private readonly env: NodeJS.ProcessEnv;
  private readonly readText: (path: string) => Promise<string>;

  constructor(
    private readonly secrets: SecretLookup,
    { env = process.env, readText = (path) => readFile(path, 'utf8') }: SecretResolverOptions = {},
  ) {
    this.env = env;
    this.readText = readText;
  }

  async resolve(name: string): Promise<string> {
    const secret = await this.secrets.getByName(name);
    if (!secret) throw new SecretUnavailableError(name, 'no secret has this name (create it under /api/extras/secrets/)');
    const value = secret.provider === 'environment-variable' ? this.fromEnv(secret) : await this.fromFile(secret);
    if (value === '') throw new SecretUnavailableError(name, 'its value is empty');
    return value;
  }

  private fromEnv(secret: SecretRecord): string {
    const variable = secret.parameters.variable ?? '';
    const value = this.env[variable];
    if (value === undefined) throw new SecretUnavailableError(secret.name, `environment variable ${variable} is not set in the worker`);
    return value.trim();
  }

  private async fromFile(secret: SecretRecord): Promise<string> {
    const path = secret.parameters.path ?? '';
    try {
      return (await this.readText(path)).trim();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new SecretUnavailableError(secret.name, `file ${path} cannot be read (${code})`);
    }
  }
}
