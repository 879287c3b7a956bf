import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/*
 * Loaded before the unit tier (test/mocharc.unit.cjs): a unit test that starts a process (a
 * redis-server, a git, a CLI) fails at once, saying where it belongs, instead of slowing the tier.
 */
const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of starters) {
  Object.defineProperty(childProcess, name, {
    value: () => {
      throw new Error(
        `child_process.${name}: unit tests start no processes; name the test *.test.ts (integration tier) instead of *.unit.test.ts`,
      );
    },
  });
}
syncBuiltinESMExports();
