import { z } from 'zod';
import { missingModule } from '../kernel/config/setting-checks.js';
import { cron, flag, list, settings, type SectionsOf } from '../kernel/config/settings.js';

/** Chat's settings: sessions and turns, the agent loop, its audit log and usage, the LLM providers. */
export const CHAT_SETTINGS = settings({
  env: {
    SESSION_TTL_S: z.coerce.number().int().min(60).default(604_800),
    SESSION_CLEANUP_CRON: cron.default('17 * * * *'),
    CHAT_WAIT_S: z.coerce.number().min(0).max(3_600).default(120),
    CHAT_RATE_PER_MIN: z.coerce.number().int().min(0).default(30),
    CHAT_TOKEN_BUDGET_PER_DAY: z.coerce.number().int().min(0).default(0),
    CHAT_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
    CHAT_PROVIDER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(8),
    CHAT_PROVIDER_CONCURRENCY_TOTAL: z.coerce.number().int().min(0).max(100_000).default(0),
    CHAT_USER_MAX_TURNS: z.coerce.number().int().min(0).max(1_000).default(8),
    CHAT_HISTORY_BUDGET_CHARS: z.coerce.number().int().min(1_000).default(48_000),
    CHAT_STREAMING: flag.default(true),
    CHAT_STREAM_INTERVAL_MS: z.coerce.number().int().min(10).max(5_000).default(100),
    AGENT_MAX_STEPS: z.coerce.number().int().min(1).max(100).default(10),
    AGENT_TIMEOUT_S: z.coerce.number().int().min(1).default(120),
    AGENT_BUILTIN_TOOLS: flag.default(true),
    APPROVAL_TIMEOUT_S: z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .default(900),
    AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
    USAGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
    MCP_TOOL_TIMEOUT_S: z.coerce.number().int().min(1).max(3_600).default(30),
    MCP_TOOL_MAX_S: z.coerce.number().int().min(1).max(86_400).default(600),
    MCP_TOOL_RESULT_CHARS: z.coerce.number().int().min(200).default(16_000),
    CHAT_MESSAGE_MAX_CHARS: z.coerce.number().int().min(1_000).default(100_000),
    PROVIDER_TIMEOUT_S: z.coerce.number().int().min(1).default(60),
    PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
    PROVIDER_MAX_RESPONSE_BYTES: z.coerce.number().int().min(65_536).default(8_388_608),
    OLLAMA_HOST: z.string().url().default('http://127.0.0.1:11434'),
    CUSTOM_PROVIDERS: list,
  },
  // Settings renamed to the service's words (a chat's history is its session); the old names still work.
  renamed: { CHECKPOINT_TTL_S: 'SESSION_TTL_S', CHECKPOINT_CLEANUP_CRON: 'SESSION_CLEANUP_CRON' },
  // CUSTOM_PROVIDERS' modules exist.
  fileProblems: (given) =>
    (given.CUSTOM_PROVIDERS ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
      .flatMap((specifier) => {
        const missing = missingModule(specifier, process.cwd());
        return missing ? [`CUSTOM_PROVIDERS: ${missing}`] : [];
      }),
  read: (e) => ({
    chat: {
      sessionTtlS: e.SESSION_TTL_S,
      cleanupCron: e.SESSION_CLEANUP_CRON,
      waitMs: e.CHAT_WAIT_S * 1_000,
      /** Turns per user per minute; 0 turns the limit off. */
      ratePerMinute: e.CHAT_RATE_PER_MIN,
      /** A user's tokens per UTC day over every model (a model's daily_token_budget overrides it on that model); 0: none. */
      tokenBudgetPerDay: e.CHAT_TOKEN_BUDGET_PER_DAY,
      workerConcurrency: e.CHAT_WORKER_CONCURRENCY,
      providerConcurrency: e.CHAT_PROVIDER_CONCURRENCY,
      /** Calls at once to one LLM model across every worker process (0: no shared limit). */
      providerConcurrencyTotal: e.CHAT_PROVIDER_CONCURRENCY_TOTAL,
      /** Turns of one user running at once across every worker process (0: no cap); a paused turn holds none. */
      userMaxTurns: e.CHAT_USER_MAX_TURNS,
      historyBudgetChars: e.CHAT_HISTORY_BUDGET_CHARS,
      /** Providers stream their answers and turns publish the text as it comes (each piece at most every `streamIntervalMs`). */
      streaming: e.CHAT_STREAMING,
      streamIntervalMs: e.CHAT_STREAM_INTERVAL_MS,
    },
    /** The tool-calling loop of a chat turn. */
    agent: {
      /** Model calls per turn; the last is offered no tools. */
      maxSteps: e.AGENT_MAX_STEPS,
      /** A turn (all its provider and tool calls) is abandoned after this. */
      timeoutMs: e.AGENT_TIMEOUT_S * 1_000,
      /** A tool call's limit, started again by each progress notification. */
      toolTimeoutMs: e.MCP_TOOL_TIMEOUT_S * 1_000,
      /** However often it reports progress, a tool call ends after this. */
      toolMaxMs: e.MCP_TOOL_MAX_S * 1_000,
      /** Characters of one tool result the model sees. */
      resultChars: e.MCP_TOOL_RESULT_CHARS,
      /** Characters of one model answer (or step) kept and stored; the rest is cut with a marker. */
      answerChars: e.CHAT_MESSAGE_MAX_CHARS,
      /** Offer chat turns the platform tools (search, schema, API request, knowledge base) with no MCP server record. */
      builtinTools: e.AGENT_BUILTIN_TOOLS,
      /** A proposed call that may change something counts as declined when its owner has not decided within this. */
      approvalTimeoutMs: e.APPROVAL_TIMEOUT_S * 1_000,
    },
    /** The audit log of the agent's tool calls. */
    audit: { retentionMs: e.AUDIT_RETENTION_DAYS * 86_400_000 },
    /** Token usage per user, model and day: kept this many days after the day ends. */
    usage: { retentionDays: e.USAGE_RETENTION_DAYS },
    providers: {
      timeoutMs: e.PROVIDER_TIMEOUT_S * 1_000,
      maxRetries: e.PROVIDER_MAX_RETRIES,
      /** A provider answer's body beyond this many bytes is refused (a 502), never read whole. */
      maxResponseBytes: e.PROVIDER_MAX_RESPONSE_BYTES,
      ollamaHost: e.OLLAMA_HOST,
      customModules: e.CUSTOM_PROVIDERS,
    },
  }),
});

export type ChatSettings = SectionsOf<typeof CHAT_SETTINGS>;
