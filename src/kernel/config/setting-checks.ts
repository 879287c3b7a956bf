import { accessSync, constants, existsSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cronParser from 'cron-parser';
import proxyAddr from 'proxy-addr';

/*
 * Checks of settings that a type alone does not catch, so that a bad value stops start-up with a
 * message naming it instead of failing later, half-started, or not at all.
 */

/**
 * A cron expression as BullMQ's job schedulers read it (with cron-parser, the version BullMQ pins),
 * in five fields (minute hour day month weekday) or six (seconds first), with a next time to run.
 * Fewer fields the parser would fill in itself (`*` alone runs every second), so they are refused.
 */
export function isCronExpression(value: string): boolean {
  const fields = value.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return false;
  try {
    cronParser.parseExpression(value).next();
    return true;
  } catch {
    return false;
  }
}

/** TRUST_PROXY entries as Express reads them: addresses, CIDRs or `loopback`, `linklocal`, `uniquelocal`. */
export function isProxyList(entries: string[]): boolean {
  try {
    proxyAddr.compile(entries);
    return true;
  } catch {
    return false;
  }
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** An IP address or a host name (the address to listen on). */
export function isHost(value: string): boolean {
  return net.isIP(value) !== 0 || HOST_NAME.test(value);
}

/** Whether a package is installed where an import from this service would find it: a node_modules folder here or above. */
function isInstalled(specifier: string): boolean {
  const name = specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules', name))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * Why a CUSTOM_PROVIDERS entry cannot be loaded, if it cannot be found: a path (relative to `cwd`)
 * must exist, a package must be installed. Whether the module is a valid provider is checked when
 * it loads.
 */
export function missingModule(specifier: string, cwd: string): string | undefined {
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
    return existsSync(path.resolve(cwd, specifier)) ? undefined : `${specifier}: no such file`;
  }
  return isInstalled(specifier) ? undefined : `${specifier}: no such package`;
}

/**
 * Why the data folder cannot be written, if it cannot: it, or the nearest folder above it that
 * exists (where it would be created), must be writable by this process.
 */
export function unwritableFolder(dir: string): string | undefined {
  let existing = path.resolve(dir);
  while (!existsSync(existing)) existing = path.dirname(existing);
  if (!statSync(existing).isDirectory()) return `${dir} cannot be a folder: ${existing} is a file`;
  try {
    accessSync(existing, constants.W_OK);
    return undefined;
  } catch {
    return existing === path.resolve(dir)
      ? `${dir} is not writable by this user`
      : `${dir} cannot be created: ${existing} is not writable by this user`;
  }
}
