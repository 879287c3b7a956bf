import {
  PlanChangedError,
  unavailableTool,
  type ChatTools,
  type ToolAnswer,
  type ToolCallReview,
  type ToolContext,
} from '../chat-tools.port.js';
import { HealthStatus } from '../../records/status.js';
import type { Logger } from '../../kernel/logging/logger.js';
import type { McpClientManager, VersionedServer } from '../../mcp-client/mcp-client-manager.js';
import type { McpTool } from '../../mcp-client/mcp-connector.port.js';
import { McpConnectRequiredError } from '../../mcp-client/mcp-oauth.port.js';
import { platformHttpStatus, toolResultContent } from '../../mcp-client/tool-result-text.js';
import type { ToolVersionStore } from '../../mcp-client/tool-versions.port.js';
import type { McpServerRecord } from '../../records/mcp-server.js';
import type { RecordCollection } from '../../records/record-collection.port.js';
import type { StatusRecord } from '../../records/status.js';
import type { ToolDefinition } from '../providers/provider.port.js';
import { planDrift, planRefusal, type WritePlan } from '../../write-plans/write-plan.js';
import type { ChatApprovalSeal } from './chat-approval-seal.js';
import { exposedToolNames } from './tool-naming.js';
import { ConflictError, NotFoundError, UpstreamError } from '../../kernel/errors.js';

export interface McpChatToolsDependencies {
  servers: Pick<RecordCollection<McpServerRecord>, 'all'>;
  statuses: { getByName(name: string): Promise<StatusRecord | null> };
  versions: ToolVersionStore;
  manager: Pick<McpClientManager, 'listTools' | 'callTool'>;
  /** Limit of one tool call at the protocol level, started again by its progress (the agent loop also stops waiting then). */
  toolTimeoutMs: number;
  /** However often it reports progress, a call ends after this (MCP_TOOL_MAX_S); `toolTimeoutMs` when absent. */
  toolMaxMs?: number;
  logger: Logger;
  /** Names taken by the built-in tools: a server's tool by one of them is offered as `<server>_<tool>`. */
  reservedNames?: ReadonlySet<string>;
  /** Seals a write's approval for an internal platform tool server (with PLATFORM_TOKEN_KEY); without it, that server asks the user again. */
  approvals?: Pick<ChatApprovalSeal, 'meta'>;
}

interface RegisteredTool {
  exposed: string;
  target: VersionedServer & { server: McpServerRecord };
  tool: McpTool;
}

/**
 * The chat's tools port over MCP servers: the tools of every Healthy server, both protocols, named
 * by exposedToolNames. The servers and their tool versions are read from Redis on each use (so a
 * status flip in any process counts at once); tool lists come from the manager's cache.
 */
export class McpChatTools implements ChatTools {
  constructor(private readonly deps: McpChatToolsDependencies) {}

  async list(context: ToolContext): Promise<ToolDefinition[]> {
    return (await this.registry(context, true)).map(({ exposed, tool }) => ({
      name: exposed,
      description: tool.description,
      parameters: tool.inputSchema,
    }));
  }

  async call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string | ToolAnswer> {
    const entry = (await this.registry(context)).find((candidate) => candidate.exposed === name);
    if (!entry) throw new NotFoundError(unavailableTool(name));
    // What was reviewed (and approved) was a call on one server as it was then, not on whatever bears the name now.
    if (context.reviewedServerRef !== undefined && serverRef(entry.target.server) !== context.reviewedServerRef) {
      throw new ConflictError(
        `the MCP server of '${name}' was changed or replaced after this call was proposed, so it was not made; propose it again if it is still wanted`,
      );
    }
    let meta: Record<string, string> | undefined;
    if (context.plan && plansWrites(entry, args)) {
      const fresh = await this.dryRun(entry, args, context.signal);
      const reasons = fresh ? planDrift(context.plan, fresh) : [];
      if (fresh && reasons.length > 0) throw new PlanChangedError(fresh, reasons);
      // The user approved this plan here: the server gets that decision sealed, checks it, and does not ask them again.
      if (context.approval?.approved === true)
        meta = await this.deps.approvals?.meta(entry.target.server, context.credential?.key, args, context.plan);
    }
    context.observe?.({ server: entry.target.server.name });
    const { onProgress, elicit, sample } = context.serverHooks ?? {};
    const result = await this.deps.manager
      .callTool(entry.target, entry.tool.name, args, {
        signal: context.signal,
        timeoutMs: this.deps.toolTimeoutMs,
        ...(this.deps.toolMaxMs ? { maxTotalMs: this.deps.toolMaxMs } : {}),
        ...(entry.tool.taskRequired ? { asTask: true } : {}),
        ...(meta ? { meta } : {}),
        ...(onProgress ? { onProgress } : {}),
        ...(elicit ? { elicit } : {}),
        // A server asks for completions on the turn's model only where a superuser allowed it.
        ...(sample && entry.target.server.sampling === true ? { sample } : {}),
      })
      .catch(async (error: unknown) => {
        // The user's tokens went (revoked, or a refresh refused) since the tools were listed: the turn says where to sign in again.
        if (error instanceof McpConnectRequiredError) {
          await context.connectRequired?.({ server: error.server, server_id: error.serverId, authorization_url: error.authorizationUrl });
        }
        throw error;
      });
    const { text, images } = toolResultContent(result);
    // The platform tool server's API request tool (under any prefix) answers with the platform's status.
    if (entry.tool.name.endsWith('_dynamic_api_request'))
      context.observe?.({ httpStatus: platformHttpStatus(result.structuredContent, text) });
    if (result.isError) throw new UpstreamError(text || `tool '${name}' failed`);
    return images.length > 0 ? { text, images } : text;
  }

  /**
   * As the server's `approval` says: `writes` (and anything else) waits unless the tool is read-only
   * by a trusted server's word. A write through an internal platform tool server's request tool
   * waits with the plan that server answers for a dry run (one with errors goes back to the model).
   */
  async review(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolCallReview> {
    const entry = (await this.registry(context)).find((candidate) => candidate.exposed === name);
    if (!entry) return { server: '', needsApproval: false };
    const review = {
      server: entry.target.server.name,
      serverRef: serverRef(entry.target.server),
      needsApproval: needsApproval(entry.target.server, entry.tool),
    };
    if (!review.needsApproval || !plansWrites(entry, args)) return review;
    const plan = await this.dryRun(entry, args, context.signal);
    if (!plan) return review;
    return plan.errors.length > 0 ? { ...review, needsApproval: false, plan, refusal: planRefusal(plan) } : { ...review, plan };
  }

  /** The plan the server answers for the call as a dry run; none when it answers none (an older server, a failure). */
  private async dryRun(entry: RegisteredTool, args: Record<string, unknown>, signal: AbortSignal): Promise<WritePlan | undefined> {
    try {
      const result = await this.deps.manager.callTool(
        entry.target,
        entry.tool.name,
        { ...args, dry_run: true },
        { signal, timeoutMs: this.deps.toolTimeoutMs },
      );
      const plan = result.structuredContent?.plan;
      return !result.isError && isPlan(plan) ? plan : undefined;
    } catch (error) {
      this.deps.logger.warn('a write could not be planned by its tool server; it waits without a plan', {
        server: entry.target.server.name,
        error: (error as Error).message,
      });
      return undefined;
    }
  }

  /**
   * The tools of every Healthy server as the turn's user reaches them (a per-user OAuth server with
   * their own account); a server they have not connected to is left out and, when `announce`,
   * reported to the turn with where to sign in.
   */
  private async registry(context: ToolContext, announce = false): Promise<RegisteredTool[]> {
    const servers = await this.healthyServers();
    const versions = await this.deps.versions.get(servers.map((server) => server.id));
    const listed = await Promise.all(
      servers.map(async (server) => {
        const target = { server, version: `${server.last_updated}#${versions.get(server.id) ?? 0}`, user: context.userId };
        try {
          return { target, tools: await this.deps.manager.listTools(target) };
        } catch (error) {
          if (error instanceof McpConnectRequiredError) {
            if (announce)
              await context.connectRequired?.({
                server: error.server,
                server_id: error.serverId,
                authorization_url: error.authorizationUrl,
              });
            return { target, tools: [] };
          }
          this.deps.logger.warn('tools of a healthy MCP server could not be listed; left out of this turn', {
            server: server.name,
            error: (error as Error).message,
          });
          return { target, tools: [] };
        }
      }),
    );
    const entries = listed.flatMap(({ target, tools }) => tools.filter((tool) => !tool.notOffered).map((tool) => ({ target, tool })));
    const names = exposedToolNames(
      entries.map(({ target, tool }) => ({ server: target.server.name, tool: tool.name })),
      this.deps.reservedNames,
    );
    return entries.map((entry, index) => ({ ...entry, exposed: names[index] as string }));
  }

  private async healthyServers(): Promise<McpServerRecord[]> {
    const healthy = await this.deps.statuses.getByName(HealthStatus.Healthy);
    if (!healthy) return [];
    return (await this.deps.servers.all()).records.filter((server) => server.status_id === healthy.id);
  }
}

/**
 * A call that writes through a platform tool server's request tool (under any prefix) that plans
 * dry runs: only an internal server's, whose plans are trusted to show the person what it will do.
 */
function plansWrites({ target, tool }: RegisteredTool, args: Record<string, unknown>): boolean {
  const properties = tool.inputSchema.properties;
  return (
    target.server.mcp_type === 'internal' &&
    tool.name.endsWith('_dynamic_api_request') &&
    typeof properties === 'object' &&
    properties !== null &&
    'dry_run' in properties &&
    typeof args.method === 'string' &&
    args.method.toUpperCase() !== 'GET' &&
    args.dry_run !== true
  );
}

/** What a tool server answered as a plan has a plan's shape. */
function isPlan(value: unknown): value is WritePlan {
  if (typeof value !== 'object' || value === null) return false;
  const plan = value as Partial<WritePlan>;
  return typeof plan.summary === 'string' && Array.isArray(plan.objects) && Array.isArray(plan.errors) && Array.isArray(plan.notes);
}

/** A server record as it is now: any edit (an address, a name, its approval) makes another. */
function serverRef(server: Pick<McpServerRecord, 'id' | 'last_updated'>): string {
  return `${server.id}@${server.last_updated}`;
}

/** Whether a call of `tool` waits for the asking user's decision, by its server's `approval`. */
export function needsApproval(server: Pick<McpServerRecord, 'approval' | 'mcp_type'>, tool: Pick<McpTool, 'readOnlyHint'>): boolean {
  switch (server.approval) {
    case 'always':
      return true;
    case 'never':
      return false;
    default:
      return server.mcp_type === 'external' || tool.readOnlyHint !== true;
  }
}
