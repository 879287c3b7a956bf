import { isPermission, PERMISSIONS } from '../../records/auth/permissions.js';
import type { TokenRecord, TokenService } from '../../records/auth/token.service.js';
import type { Config } from '../../roles/config.js';
import { ValidationError } from '../../kernel/errors.js';
import { commandLogger } from '../../kernel/logging/logger.js';
import { openTokenService } from '../../roles/tokens.js';
import { writeTable } from '../table.js';

export interface TokenCreateOptions {
  user: string;
  superuser?: boolean;
  perm?: string[];
  readOnly?: boolean;
  expires?: string;
  description?: string;
}

async function withTokens<T>(config: Config, run: (tokens: TokenService) => Promise<T>): Promise<T> {
  // Admin commands write their logs to stderr: stdout carries the answer (a key, a table).
  const logger = commandLogger('error');
  const { tokens, close } = await openTokenService(config, logger);
  try {
    return await run(tokens);
  } finally {
    await close();
  }
}

function parseExpiry(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw ValidationError.field('expires', `'${value}' is not an ISO 8601 date or date-time.`);
  }
  return date;
}

/** Prints the new key alone on stdout: the only time it is ever shown. */
export async function createToken(config: Config, options: TokenCreateOptions, out: NodeJS.WritableStream): Promise<number> {
  const permissions = (options.perm ?? []).filter(isPermission);
  const unknown = (options.perm ?? []).filter((perm) => !isPermission(perm));
  if (unknown.length > 0) {
    throw ValidationError.field('perm', `Unknown permission ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}.`);
  }
  const expires = parseExpiry(options.expires);
  const { key } = await withTokens(config, (tokens) =>
    tokens.create({
      username: options.user,
      superuser: Boolean(options.superuser),
      permissions,
      writeEnabled: !options.readOnly,
      expires,
      description: options.description,
    }),
  );
  out.write(`${key}\n`);
  return 0;
}

function describe(token: TokenRecord): string[] {
  const scope = token.superuser ? 'superuser' : token.permissions.join(',') || '(none)';
  return [
    token.id,
    token.username,
    `…${token.key_hint}`,
    token.write_enabled ? 'read-write' : 'read-only',
    token.expires ?? 'never',
    scope,
  ];
}

export async function listTokens(config: Config, { json }: { json?: boolean }, out: NodeJS.WritableStream): Promise<number> {
  const tokens = await withTokens(config, (service) => service.list());
  if (json) {
    out.write(
      `${JSON.stringify(
        tokens.map(({ key_hash: _hash, ...token }) => token),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const rows = [['ID', 'USER', 'KEY', 'ACCESS', 'EXPIRES', 'PERMISSIONS'], ...tokens.map(describe)];
  writeTable(out, rows);
  return 0;
}

export async function revokeToken(config: Config, id: string, out: NodeJS.WritableStream): Promise<number> {
  await withTokens(config, (tokens) => tokens.revoke(id));
  out.write(`revoked ${id}\n`);
  return 0;
}
