import { DomainError } from '../kernel/errors.js';
import type { Permission } from '../records/auth/permissions.js';
import type { WritePlan } from '../write-plans/write-plan.js';
import type { McpCallHooks } from '../mcp-client/mcp-connector.port.js';
import type { ImagePart, ToolDefinition } from './providers/provider.port.js';
import type { ConnectRequired } from './chat.jobs.js';

/**
 * The asking user's rights for this turn: a delegated key for this service's API (minted per
 * turn, revoked when it ends) and what it allows. Lives in memory only: never logged or stored.
 */
export interface TurnCredential {
  key: string;
  superuser: boolean;
  permissions: ReadonlySet<Permission>;
  writeEnabled: boolean;
}

/** The owner's decision on a proposed call (or the lapse of the wait, with `decided_by` null). */
export interface ApprovalDecision {
  approved: boolean;
  note?: string;
  /** The deciding user's id; null when no one decided within APPROVAL_TIMEOUT_S. */
  decided_by: string | null;
  decided_at: string;
}

/** Where a call's tool comes from and whether the call waits for its owner's decision first. */
export interface ToolCallReview {
  /** The MCP server's name, or `built-in` for the platform tools. */
  server: string;
  /** The MCP server record as it is now (its id and last change), which an approved call must still find. */
  serverRef?: string;
  needsApproval: boolean;
  /** What the call will do, worked out with reads only (a write to the platform): shown with its approval, kept in the audit log. */
  plan?: WritePlan;
  /** The call is not made and nobody is asked: the model gets this as the call's error (a plan with errors, a call that cannot be planned). */
  refusal?: string;
}

/**
 * An approved call's plan no longer holds: the objects it changes moved since it was approved.
 * Nothing was written; `plan` is the same call planned again, `reasons` say what moved.
 */
export class PlanChangedError extends DomainError {
  constructor(
    readonly plan: WritePlan,
    readonly reasons: string[],
  ) {
    super(`not written: ${reasons.join('; ')}`);
  }
}

/** What the model hears of a call of a tool no usable server offers. */
export const unavailableTool = (name: string) => `no tool named '${name}' is available (its server may have become unhealthy)`;

/** What a tool tells about one call, for the audit log: the server that ran it, the platform's HTTP status. */
export interface ToolCallFacts {
  server?: string;
  httpStatus?: number;
}

export interface ToolContext {
  userId: string;
  signal: AbortSignal;
  /** Absent for turns queued without a token (before delegation existed): tools acting for the user refuse. */
  credential?: TurnCredential;
  /** The owner's approval of this call, when it needed one. */
  approval?: ApprovalDecision;
  /** The server the call was reviewed (and, when it needed one, approved) on: ToolCallReview's `serverRef`. A tool on another, or on that one since changed, is not called. */
  reviewedServerRef?: string;
  /** The plan the owner approved: a tool writes only if it still holds (else PlanChangedError). */
  plan?: WritePlan;
  /** Where a tool reports what it learned about the call (see ToolCallFacts); tools may ignore it. */
  observe?: (facts: ToolCallFacts) => void;
  /**
   * What the call's MCP server may send while it runs: progress, a question for the turn's user, a
   * request for a completion (passed on only where the server's record allows sampling).
   */
  serverHooks?: McpCallHooks;
  /** Told of each OAuth server left out because the user has not connected their account to it (the turn says so). */
  connectRequired?: (notice: ConnectRequired) => Promise<void>;
}

/** A tool's answer with images for the model beside its text (which describes them too). */
export interface ToolAnswer {
  text: string;
  images: ImagePart[];
}

/**
 * Port for the tools a chat turn may use (MCP servers plug in here). `call` answers the text the
 * model sees (with images, when the tool returned some); a thrown error is shown to the model as
 * the tool's failure, not as the turn's.
 */
export interface ChatTools {
  list(context: ToolContext): Promise<ToolDefinition[]>;
  call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<string | ToolAnswer>;
  /**
   * Where the tool comes from and whether this call must wait for its owner's decision (an unknown
   * tool's server is '': it is not called); for a write, its plan, under the asking user's rights.
   */
  review(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolCallReview>;
}
