import which from 'which';

/**
 * Skips the suite or test of `context` when a program it drives is not on the PATH, saying which
 * and how to install it, so that `npm test` on a machine without them reports them as pending
 * instead of failing on a timeout (`.ci/run` installs them all).
 */
export function skipUnlessInstalled(context: Mocha.Context, programs: string[], debianPackages: string): void {
  const missing = programs.filter((program) => !which.sync(program, { nothrow: true }));
  if (missing.length === 0) return;
  console.log(`      (skipped: ${missing.join(' and ')} not installed; Debian: apt-get install ${debianPackages})`);
  context.skip();
}
