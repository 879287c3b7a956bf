import type { Config } from '../../roles/config.js';
import { platformLine } from '../../platform/platform-check.js';
import { platformCheck } from '../../roles/platform.js';

/**
 * `aiops platform check`: which platform the agent acts on and its description's state, as the
 * admin page's Platform section shows them (or that answer as JSON). Exit 1 when the description cannot be read.
 */
export async function checkPlatformCommand(config: Config, options: { json?: boolean }, out: NodeJS.WritableStream): Promise<number> {
  const check = await platformCheck(config.platform)();
  if (options.json) {
    out.write(`${JSON.stringify(check, null, 2)}\n`);
  } else {
    const { description } = check;
    const read =
      description.state === 'ok'
        ? `read, ${description.operations ?? 0} operations (from ${description.source})`
        : `not read (from ${description.source}): ${description.error ?? 'unknown error'}`;
    const lines = [
      `platform: ${platformLine(config.platform)}`,
      `PLATFORM_ENV: ${check.env}`,
      `PLATFORM_TOKEN: ${check.token_set ? 'set' : 'not set'}`,
      `PLATFORM_READ_ONLY: ${String(check.read_only)}`,
      `description: ${read}`,
      ...(check.to_connect ? [`to connect: ${check.to_connect}`] : []),
    ];
    out.write(`${lines.join('\n')}\n`);
  }
  return check.description.state === 'ok' ? 0 : 1;
}
