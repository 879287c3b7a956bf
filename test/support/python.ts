import { spawnSync } from 'node:child_process';

/**
 * A Python interpreter that can import `module`: the `python3` first on the PATH, else the
 * system's (`/usr/bin/python3`, where Debian installs its python3-* packages; the first on the PATH
 * may be another one without them). Throws naming the Debian package when none can.
 */
export function pythonWith(module: string, debianPackage: string): string {
  for (const interpreter of ['python3', '/usr/bin/python3']) {
    if (spawnSync(interpreter, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0) return interpreter;
  }
  throw new Error(`no Python interpreter here can import ${module} (tried python3 and /usr/bin/python3): apt-get install ${debianPackage}`);
}
