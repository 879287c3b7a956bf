import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { readJson, writeJsonAtomic } from '../../src/knowledge/adapters/json-file.js';
import { tempDirPerTest } from '../support/temp-dir.js';

describe('JSON files', () => {
  const tempDir = tempDirPerTest('json');

  it('reads back what was written, in a folder made on the way, owner-only, no temporary file left', async () => {
    const file = path.join(tempDir(), 'a', 'b', 'state.json');
    await writeJsonAtomic(file, { repositories: ['acme/tools'] });
    expect(await readJson(file)).to.deep.equal({ repositories: ['acme/tools'] });
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(readdirSync(path.dirname(file))).to.deep.equal(['state.json']);
  });

  it('reads a missing file as undefined and a broken one as an error', async () => {
    expect(await readJson(path.join(tempDir(), 'none.json'))).to.equal(undefined);
    writeFileSync(path.join(tempDir(), 'half.json'), '{"repositories": [');
    expect(await readJson(path.join(tempDir(), 'half.json')).catch((error: unknown) => error)).to.be.instanceOf(SyntaxError);
  });

  it('leaves one whole value after writes at once to the same file', async () => {
    const file = path.join(tempDir(), 'race.json');
    const values = Array.from({ length: 20 }, (_, index) => ({ index, padding: 'x'.repeat(10_000) }));
    await Promise.all(values.map((value) => writeJsonAtomic(file, value)));
    expect(values).to.deep.include(await readJson(file));
    expect(readdirSync(tempDir())).to.deep.equal(['race.json']);
  });
});
