import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startRedisProcess } from '../../src/kernel/redis/redis-process.js';
import { StartupError } from '../../src/kernel/errors.js';
import { tempDirPerTest } from '../support/temp-dir.js';

describe('finding redis-server', () => {
  const tempDir = tempDirPerTest('which');

  it('takes a file that is there but not executable for no redis-server at all', async () => {
    const dir = tempDir();
    const binary = path.join(dir, 'redis-server');
    writeFileSync(binary, '#!/bin/sh\n');
    chmodSync(binary, 0o644);
    const error = await startRedisProcess({ dir, binary }).catch((failure: unknown) => failure);
    expect(error).to.be.instanceOf(StartupError);
    expect((error as Error).message).to.match(/^redis-server is not installed/);
  });
});
