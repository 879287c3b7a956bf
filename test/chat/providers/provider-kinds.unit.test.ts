import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { packagePath } from '../../../src/kernel/package-root.js';
import { PROVIDER_KINDS } from '../../../src/records/provider-kinds.js';

/** The package a module specifier names (`openai/resources/x` is `openai`, `@scope/name/x` is `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('provider kinds', () => {
  // The lint confines each kind's `sdks` to adapters: a package an adapter speaks through but its
  // kind does not name would be free for any domain module to import.
  it('name every package the provider adapters import, and none they do not', () => {
    const folder = 'src/chat/providers';
    const imported = readdirSync(packagePath(folder))
      .filter((file) => file.endsWith('.provider.ts'))
      .flatMap((file) => [...readFileSync(packagePath(`${folder}/${file}`), 'utf8').matchAll(/from '([^'.][^']*)'/g)])
      .map((match) => packageOf(match[1]!))
      .filter((name) => !name.startsWith('node:'));
    const named = Object.values(PROVIDER_KINDS).flatMap((kind) => kind.sdks);
    expect([...new Set(named)].sort()).to.deep.equal([...new Set(imported)].sort());
  });
});
