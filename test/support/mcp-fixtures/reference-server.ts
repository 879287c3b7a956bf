import path from 'node:path';
import { packagePath } from '../../../src/kernel/package-root.js';
import { freePort } from '../../../src/kernel/redis/redis-process.js';
import { startProcess, type RunningProcess } from '../processes.js';

/**
 * The protocol's reference server (`@modelcontextprotocol/server-everything`, a pinned dev
 * dependency): a server no one here wrote, as a yardstick of the MCP client.
 */
const REFERENCE_SERVER = path.join(packagePath('node_modules/@modelcontextprotocol/server-everything'), 'dist', 'index.js');

/** Command and args that start the reference server over stdio. */
export function referenceStdioCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [REFERENCE_SERVER, 'stdio'] };
}

/**
 * The tools the reference server offers a client that declares what ours does (roots, elicitation
 * in form and URL modes, sampling): all seventeen it has, of which four only to such a client
 * (`get-roots-list`, the two elicitation triggers, the sampling trigger).
 */
export const REFERENCE_TOOLS = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-long-running-operation',
  'get-roots-list',
  'trigger-elicitation-request',
  'trigger-url-elicitation',
  'trigger-sampling-request',
  'simulate-research-query',
];

export interface ReferenceServer {
  /** Its base URL: Streamable HTTP at `/mcp`, no health path (404). */
  url: string;
  process: RunningProcess;
  close(): Promise<void>;
}

/** Starts the reference server over Streamable HTTP on a free port. */
export async function startReferenceServer(): Promise<ReferenceServer> {
  const port = await freePort();
  const running = startProcess(process.execPath, [REFERENCE_SERVER, 'streamableHttp'], { PORT: String(port) });
  try {
    await running.waitForLine(/listening on port/i);
  } catch (error) {
    await running.stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, process: running, close: async () => void (await running.stop()) };
}
