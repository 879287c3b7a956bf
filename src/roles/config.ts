import { CHAT_SETTINGS, type ChatSettings } from '../chat/chat.settings.js';
import { EMBEDDINGS_SETTINGS } from '../embeddings/embeddings.settings.js';
import { HEALTH_SETTINGS, type HealthSettings } from '../health/health.settings.js';
import { KERNEL_SETTINGS, type KernelSettings } from '../kernel/config/config.js';
import { loadDotenv, readSettings, settingNames, type LoadOptions, type SectionsOf } from '../kernel/config/settings.js';
import { KNOWLEDGE_SETTINGS } from '../knowledge/knowledge.settings.js';
import { MCP_CLIENT_SETTINGS, type McpClientSettings } from '../mcp-client/mcp-client.settings.js';
import { PLATFORM_SETTINGS } from '../platform/platform.settings.js';
import { TOOL_SERVER_SETTINGS } from '../tool-server/tool-server.settings.js';
import { WRITE_PLANS_SETTINGS } from '../write-plans/write-plans.settings.js';

/**
 * The whole configuration: the kernel's settings and every component's, each declared in its own
 * folder (`<component>.settings.ts`). The README's tables (sections "Configuration", "Platform tool
 * server (MCP)" and "Knowledge base") are written from these schemas; keep them together.
 */
// In the order their problems are said (a module that is not there before the folder that cannot be written).
const ALL = [
  CHAT_SETTINGS,
  MCP_CLIENT_SETTINGS,
  HEALTH_SETTINGS,
  EMBEDDINGS_SETTINGS,
  PLATFORM_SETTINGS,
  WRITE_PLANS_SETTINGS,
  TOOL_SERVER_SETTINGS,
  KNOWLEDGE_SETTINGS,
  KERNEL_SETTINGS,
] as const;

export type Config = KernelSettings &
  ChatSettings &
  McpClientSettings &
  HealthSettings &
  SectionsOf<typeof EMBEDDINGS_SETTINGS> &
  SectionsOf<typeof PLATFORM_SETTINGS> &
  SectionsOf<typeof WRITE_PLANS_SETTINGS> &
  SectionsOf<typeof TOOL_SERVER_SETTINGS> &
  SectionsOf<typeof KNOWLEDGE_SETTINGS> & {
    /** Settings given under an old name, one line each (`CHECKPOINT_TTL_S is SESSION_TTL_S now`), for the CLI to say. */
    renamedSettings: string[];
  };

/**
 * Parses the environment, once per process: a bad variable fails start-up with every problem
 * named, one line each. Every role takes the sections it needs from the result.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Config {
  return readSettings(ALL, env, options) as Config;
}

/**
 * The configuration of this process, parsed once (by the CLI): an optional `.env` in the working
 * directory first fills the variables the environment leaves unset (or empty); what the settings
 * name on disk is checked too.
 */
export function loadProcessConfig(dir = process.cwd()): Config {
  loadDotenv(dir);
  return loadConfig(process.env, { checkFiles: true });
}

/** Every variable the configuration reads, current and old names (tests give their processes none but their own). */
export const SETTING_NAMES: readonly string[] = settingNames(ALL);
