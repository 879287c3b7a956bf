import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { hasPermission } from '../records/auth/permissions.js';
import { PlanChangedError, type ChatTools, type ToolCallReview, type ToolContext, type TurnCredential } from '../chat/chat-tools.port.js';
import { BUILTIN_SERVER } from '../records/mcp-server.js';
import { NotFoundError, PermissionDeniedError, UpstreamError } from '../kernel/errors.js';
import type { PersonalTokenStore } from '../platform/personal-tokens.port.js';
import type { ApiRequest, PlatformClient } from '../platform/platform.port.js';
import { requestOfArguments } from '../write-plans/confirm-tokens.js';
import { planDrift, planRefusal, type WritePlan } from '../write-plans/write-plan.js';
import { platformHttpStatus } from '../mcp-client/tool-result-text.js';
import type { ToolDefinition } from '../chat/providers/provider.port.js';
import { createServer } from './server.js';
import { PLATFORM_TOOLS, toolName, type PlatformTool, type ToolDeps } from './tools/index.js';
import { ApiRequestInput, dynamicApiRequest } from './tools/dynamic-api-request.js';
import { controlPlaneRefusal } from '../api/control-plane.js';

export interface BuiltinPlatformToolsOptions {
  /** The platform tool server's parts, as `aiops mcp` builds them; `client` carries the service token. */
  deps: ToolDeps;
  version: string;
  /**
   * The platform is this service's own API: calls carry the turn's delegated credential (the asking
   * user's rights). Otherwise the service token is used, for reads only.
   */
  platformIsSelf: boolean;
  /** Users' own tokens for an external platform (PLATFORM_TOKEN_KEY set): a user's calls carry theirs, writes included. */
  personalTokens?: Pick<PersonalTokenStore, 'get'>;
}

/** What a write on an external platform without a personal token is told. */
export const NO_PERSONAL_TOKEN =
  'writes on this platform are made only with your own platform token; store it with PUT /api/plugins/ai-ops/platform-token/ {"token": "..."} (reads use the service token)';

/** A platform client with one user's rights (or the service's), and the tools connected over it. */
interface Session {
  client: PlatformClient;
  tools: Promise<Client>;
}

const RequestArguments = z.object(ApiRequestInput);

/** A request tool call's arguments as a platform request and whether it only plans, or undefined when they are not valid (the tool refuses them). */
function requestOf(args: Record<string, unknown>): { request: ApiRequest; dryRun: boolean } | undefined {
  const parsed = RequestArguments.safeParse(args);
  if (!parsed.success) return undefined;
  return { request: requestOfArguments(parsed.data), dryRun: parsed.data.dry_run === true };
}

/**
 * The platform tool server's tools that chat turns are offered (each tool's `chat`), served
 * in this process over an in-memory MCP connection: the same tools, names, schemas and error
 * shapes as `aiops mcp`, with no server record or network hop. Each turn with a credential gets
 * its own connection whose platform client carries that credential (dropped with the turn).
 */
export class BuiltinPlatformTools implements ChatTools {
  readonly names: ReadonlySet<string>;
  /** The definitions of the offered tools, by published name. */
  private readonly definitions: ReadonlyMap<string, PlatformTool>;
  /** The API request tool, whose answers carry the platform's HTTP status. */
  private readonly requestTool: string;
  private readonly shared: Session;
  private readonly perTurn = new WeakMap<TurnCredential, Session>();
  /** Per user, the session over their personal token (replaced when the token changes). */
  private readonly perUser = new Map<string, { token: string; session: Session }>();
  private offered?: Promise<Tool[]>;

  constructor(private readonly options: BuiltinPlatformToolsOptions) {
    const prefix = options.deps.toolPrefix;
    this.definitions = new Map(PLATFORM_TOOLS.filter((tool) => tool.chat.offered).map((tool) => [toolName(tool, prefix), tool]));
    this.names = new Set(this.definitions.keys());
    this.requestTool = toolName(dynamicApiRequest, prefix);
    const serviceReadOnly = options.platformIsSelf
      ? // No credential (a turn queued before delegation): nothing acts for an unknown user.
        options.deps.client.withToken(undefined, { readOnly: true, readOnlyReason: 'this turn carries no user credential' })
      : options.deps.client.withToken(options.deps.client.token, {
          readOnly: true,
          readOnlyReason: NO_PERSONAL_TOKEN,
        });
    this.shared = this.connect(serviceReadOnly);
  }

  async list(_context: ToolContext): Promise<ToolDefinition[]> {
    return (await this.tools()).map((tool) => ({ name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema }));
  }

  /**
   * The API request tool waits for a decision unless it only reads (GET, or a dry run), with the
   * write's plan, made with the asking user's rights; a plan with errors is refused to the model
   * instead. The other tools wait unless annotated read-only.
   */
  async review(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolCallReview> {
    if (name === this.requestTool) return this.reviewRequest(args, context);
    const tool = this.definitions.get(name);
    return { server: BUILTIN_SERVER, needsApproval: tool !== undefined && tool.annotations.readOnlyHint !== true };
  }

  private async reviewRequest(args: Record<string, unknown>, context: ToolContext): Promise<ToolCallReview> {
    const server = BUILTIN_SERVER;
    const asked = requestOf(args);
    // Before any plan: planning reads what the path names, and a read of the control plane is refused too.
    const refusal = asked && this.controlPlaneRefusal(asked.request.path);
    if (refusal) return { server, needsApproval: false, refusal };
    // Arguments the tool refuses are not a write: they go to it and fail there.
    if (!asked || asked.dryRun || asked.request.method === 'GET') return { server, needsApproval: false };
    const { method, path } = asked.request;
    let plan: WritePlan;
    try {
      plan = await this.options.deps.planner.plan(asked.request, (await this.sessionFor(context)).client);
    } catch (error) {
      return {
        server,
        needsApproval: false,
        refusal: `${method} ${path} was not made: it could not be planned (${(error as Error).message})`,
      };
    }
    if (plan.errors.length > 0) return { server, needsApproval: false, plan, refusal: planRefusal(plan) };
    return { server, needsApproval: true, plan };
  }

  /** Why the request tool may not call `path` (on this service's own API, its control plane), or undefined. */
  private controlPlaneRefusal(path: string): string | undefined {
    return this.options.platformIsSelf ? controlPlaneRefusal(path) : undefined;
  }

  private tools(): Promise<Tool[]> {
    this.offered ??= this.shared.tools.then(async (client) => (await client.listTools()).tools.filter((tool) => this.names.has(tool.name)));
    return this.offered;
  }

  async call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string> {
    const tool = this.definitions.get(name);
    if (!tool) throw new NotFoundError(`no built-in tool named '${name}'`);
    const { credential } = context;
    context.observe?.({ server: BUILTIN_SERVER });
    const { permission } = tool;
    if (permission && !(credential && hasPermission(credential, permission))) {
      throw new PermissionDeniedError(`permission denied: ${name} needs ${permission}`);
    }
    if (name === this.requestTool) {
      // A call that was never reviewed (or reviewed before this rule) is refused all the same.
      const refusal = this.controlPlaneRefusal(requestOf(args)?.request.path ?? '');
      if (refusal) throw new PermissionDeniedError(refusal);
    }
    const session = await this.sessionFor(context);
    const approved = name === this.requestTool ? context.plan : undefined;
    if (approved) await this.assertPlanHolds(args, approved, session.client);
    const result = (await (
      await session.tools
    ).callTool({ name, arguments: args }, undefined, { signal: context.signal })) as CallToolResult;
    const text = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type} content not shown]`)).join('\n');
    if (name === this.requestTool) context.observe?.({ httpStatus: platformHttpStatus(result.structuredContent, text) });
    if (result.isError) throw new UpstreamError(text || `tool '${name}' failed`);
    return approved ? this.withReadBack(result.structuredContent, approved, session.client) : text;
  }

  /** Plans an approved write again just before it is sent: if what it changes moved since, nothing is sent (PlanChangedError). */
  private async assertPlanHolds(args: Record<string, unknown>, approved: WritePlan, client: PlatformClient): Promise<void> {
    const asked = requestOf(args);
    if (!asked) return;
    const fresh = await this.options.deps.planner.plan(asked.request, client);
    const reasons = planDrift(approved, fresh);
    if (reasons.length > 0) throw new PlanChangedError(fresh, reasons);
  }

  /** The request tool's answer to an approved write, with what a read after it found: the fields that did not end up as planned. */
  private async withReadBack(answer: Record<string, unknown> | undefined, plan: WritePlan, client: PlatformClient): Promise<string> {
    let differences: string[];
    try {
      differences = await this.options.deps.planner.readBack(plan, answer?.data, client);
    } catch (error) {
      differences = [`the write could not be read back: ${(error as Error).message}`];
    }
    const readBack = differences.length > 0 ? { as_planned: false, differences } : { as_planned: true };
    return JSON.stringify({ ...answer, read_back: readBack }, null, 2);
  }

  /** The user's session: on this service's own API, the turn's delegated credential; on an external platform, their own token. */
  private sessionFor({ credential, userId }: Pick<ToolContext, 'credential' | 'userId'>): Promise<Session> | Session {
    return this.options.platformIsSelf ? this.session(credential) : this.personalSession(userId);
  }

  /** An external platform: the user's own token when they stored one, else the service token for reads. */
  private async personalSession(userId: string): Promise<Session> {
    const token = await this.options.personalTokens?.get(userId);
    if (!token) return this.shared;
    const known = this.perUser.get(userId);
    if (known?.token === token) return known.session;
    const session = this.connect(this.options.deps.client.withToken(token));
    this.perUser.set(userId, { token, session });
    return session;
  }

  private session(credential: TurnCredential | undefined): Session {
    if (!credential) return this.shared;
    let session = this.perTurn.get(credential);
    if (!session) {
      const readOnly = !credential.writeEnabled;
      session = this.connect(
        this.options.deps.client.withToken(credential.key, {
          readOnly,
          ...(readOnly ? { readOnlyReason: 'your token is read-only' } : {}),
        }),
      );
      this.perTurn.set(credential, session);
    }
    return session;
  }

  private connect(client: PlatformClient): Session {
    return { client, tools: this.connectTools(client) };
  }

  private async connectTools(client: PlatformClient): Promise<Client> {
    const { server } = createServer({ ...this.options.deps, client }, this.options.version);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcpClient = new Client({ name: 'aiops-chat', version: this.options.version });
    await mcpClient.connect(clientSide);
    return mcpClient;
  }
}
