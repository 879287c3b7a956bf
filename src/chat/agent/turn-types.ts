import type { ApprovalRequest, ChatProgress } from '../chat.jobs.js';
import type { AuditSubject } from '../audit/tool-call-audit.js';
import type { ApprovalDecision, TurnCredential } from '../chat-tools.port.js';
import type { ChatMessage, ChatProvider, ImagePart, ProviderReply, TextSink } from '../providers/provider.port.js';
import type { LlmModelRecord } from '../../records/llm-model.js';
import type { WritePlan } from '../../write-plans/write-plan.js';
import type { TokenCount } from '../usage/token-usage.port.js';
import type { McpElicitation, McpElicitationAnswer } from '../../mcp-client/mcp-connector.port.js';

// A turn as the agent loop takes, pauses and answers it: the chat's ports and its turn runner share these.

/** How one tool call ended, as the model sees it; `approval` is the owner's decision when it needed one. */
export interface ToolCallOutcome {
  ok: boolean;
  content: string;
  /** Images the tool returned, for a model that takes them (`content` describes them too); not kept in the session. */
  images?: ImagePart[];
  approval?: ApprovalDecision;
  /** Not made: its approved plan no longer held, so it is planned again (this plan) and asked again. */
  replanned?: { plan: WritePlan; reasons: string[] };
}

/** A tool message with the owner's decision on its call, when the call needed one (stored with the session). */
export type TurnMessage = ChatMessage | (Extract<ChatMessage, { role: 'tool' }> & { approval: ApprovalDecision });

/** A turn stopped to wait for decisions: everything needed to go on from there (plain JSON, stored while it waits). */
export interface PausedAgent {
  /** The step whose calls wait. */
  step: number;
  /** The turn's messages so far; the last is the assistant's step with its tool calls. */
  messages: TurnMessage[];
  usage: TokenCount;
  /** The step's calls that needed no decision and ran already, by call id. */
  ran: Record<string, ToolCallOutcome>;
  pending: ApprovalRequest[];
  /** Errors of this turn's refused plans by operation, so that a corrected call shows what was fixed. */
  refused?: Record<string, string[]>;
  /** When its calls were put to their owner (ms since the epoch; absent in rounds stored before it was kept): how long a decision took. */
  askedAt?: number;
}

export interface AgentTurn {
  provider: ChatProvider;
  model: Pick<LlmModelRecord, 'id' | 'name' | 'provider' | 'temperature' | 'model_config'>;
  /** System prompt and history. */
  prompt: ChatMessage[];
  message: string;
  userId: string;
  /** The asking user's rights, for tools that act on their behalf. */
  credential?: TurnCredential;
  /** The turn's deadline (AGENT_TIMEOUT_S) and cancellation. */
  signal: AbortSignal;
  report(progress: ChatProgress): Promise<void>;
  /** Where each step's text goes as the model writes it (streaming); the reply comes whole without it. */
  text?: (step: number) => TextSink;
  /** Goes on from a pause with the owner's decisions (every pending call has one). */
  resume?: { paused: PausedAgent; decisions: Record<string, ApprovalDecision> };
  /** What earlier attempts of this turn did with its approved calls, so that none runs twice. */
  approvedCalls?: ApprovedCallLog;
  /** Whose turn this is, for the audit log of its tool calls. */
  audit?: AuditSubject;
  /**
   * Records each model call's tokens as the provider reported them; answers why the turn must stop
   * once the step's calls have run (its user's token budget is spent), if it must.
   */
  meter?(tokens: TokenCount): Promise<string | undefined>;
  /** Refuses (throws) when the turn's user has spent their budget on its model: a server's sampling request is not served then. */
  admit?(): Promise<void>;
  /** Puts an MCP server's question to the turn's user and waits for the answer (cancel when none comes in time); none: every question is cancelled. */
  elicit?(
    question: McpElicitation,
    call: ElicitingCall,
    signal: AbortSignal,
  ): Promise<{ answer: McpElicitationAnswer; answeredBy: string | null }>;
}

/** The tool call a server's question came with. */
export interface ElicitingCall {
  step: number;
  id: string;
  name: string;
  server: string;
}

/** What an earlier attempt of a turn left of an approved call: nothing, `started` (it never finished), or its outcome. */
export type EarlierAttempt = null | 'started' | ToolCallOutcome;

/**
 * The approved calls of a resumed step across attempts of the turn: a worker may stop in the middle
 * of one, and the job runs again elsewhere.
 */
export interface ApprovedCallLog {
  /** Marks the call started and answers what an earlier attempt left of it. */
  start(callId: string): Promise<EarlierAttempt>;
  finish(callId: string, outcome: ToolCallOutcome): Promise<void>;
}

export type AgentOutcome =
  | {
      kind: 'answered';
      /** This turn's messages: the user's, each assistant step with its tool calls, each tool result, the answer. */
      messages: TurnMessage[];
      reply: ProviderReply;
      usage: TokenCount;
    }
  | { kind: 'paused'; paused: PausedAgent };
