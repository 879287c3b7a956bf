import type { KnowledgeBase } from '../../knowledge/knowledge-base.service.js';
import type { RepositoryWriter } from '../../knowledge/repository-admission.js';
import type { Logger } from '../../kernel/logging/logger.js';
import type { Metrics } from '../../kernel/metrics/metrics.js';
import type { EndpointIndex } from '../../endpoint-search/endpoint-index.js';
import type { PlatformClient } from '../../platform/platform.port.js';
import type { WritePlanner } from '../../write-plans/write-planner.js';
import type { HostConnection, WriteConfirmation } from '../write-confirmation.js';

/** What the tools use, built once per process and shared by every connection. */
export interface ToolDeps {
  index: EndpointIndex;
  client: PlatformClient;
  /** Plans writes (the request tool's dry run, chat's approvals) and checks every request's query parameters. */
  planner: WritePlanner;
  /** The knowledge base: repositories, index runs (queued or in process), status and search. */
  knowledge: KnowledgeBase;
  /**
   * Who calls, as far as adding a repository cares: over stdio the operator (a superuser), over HTTP
   * the caller (a superuser's API token; not the static token), in a chat turn nobody who may name a secret.
   */
  writer: RepositoryWriter;
  /**
   * How the host's user confirms the request tool's writes (`aiops mcp`, either transport), and who
   * calls through which host. Absent in process (the chat's built-in tools): the chat plans, asks
   * its user and checks the plan again itself before each call.
   */
  writes?: { gate: WriteConfirmation; host: HostConnection };
  logger: Logger;
  /** Tool-name prefix (`platform`). */
  toolPrefix: string;
  /** When the platform is this service's own API: said by an endpoint search whose best hit is weak (see WEAK_BEST_SCORE). */
  selfPlatformNote?: string;
  /** n_results when the caller gives none. */
  defaultResults: number;
  /** The API request tool fits list answers into this many characters, saying where the rest starts. */
  answerBudgetChars: number;
  /** How long a tool call waits for the first index build. */
  indexWaitMs: number;
  /** Values that must never appear in a tool result (the platform and Git tokens). */
  secrets: string[];
  /** Search latencies are recorded here; served at /metrics (`aiops mcp --http`, or METRICS_PORT over stdio). */
  metrics?: Metrics;
}
