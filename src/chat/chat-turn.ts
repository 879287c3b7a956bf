import type { AgentLoop } from './agent/agent-loop.js';
import type { AgentOutcome, PausedAgent, ToolCallOutcome } from './agent/turn-types.js';
import type { DelegatedToken } from '../records/auth/token.service.js';
import type { ApprovalRound, ApprovalStore, SettleOutcome } from './approval-store.port.js';
import type { ApprovalDecision, TurnCredential } from './chat-tools.port.js';
import { AuthenticationError, DomainError, NotFoundError } from '../kernel/errors.js';
import { chatTurnJobId, TURN_STOPPED, type ChatProgress, type ChatTurnData, type ChatTurnResult } from './chat.jobs.js';
import type { FailureKind } from '../kernel/jobs/job-failure.js';
import type { LlmModelRecord } from '../records/llm-model.js';
import {
  ProviderError,
  type ChatMessage,
  type ChatProvider,
  type ProviderCallPolicy,
  type ProviderTarget,
} from './providers/provider.port.js';
import { SecretUnavailableError } from '../records/secret-resolver.js';
import type { SessionStore, StoredMessage } from './session-store.port.js';
import { linkedSignal } from '../kernel/linked-signal.js';
import { historyWithinBudget } from './history-budget.js';
import type { TurnTextWriter } from './turn-text-writer.js';
import type { TokenBudget, TurnStep } from './usage/token-budget.js';
import type { TokenCount, TokenUsageStore } from './usage/token-usage.port.js';
import type { TurnSlots } from './turn-slots.port.js';
import type { ElicitationStore } from './elicitation-store.port.js';
import { TurnElicitations } from './turn-elicitations.js';

const TITLE_LENGTH = 80;
/** A delegated credential outlives the turn's deadline by this much, for the last call's answer. */
const DELEGATION_MARGIN_MS = 30_000;
/** A paused turn's round is kept this long past its expiry (as long as a finished turn's job). */
const ROUND_KEPT_MS = 3_600_000;
/** A turn past its user's cap of turns at once tries again this much later. */
const USER_SLOT_RETRY_MS = 1_000;
/** What a turn's first run finds of an approval round: none was opened. */
const NO_ROUND: SettleOutcome = { state: 'none' };

/** What one attempt at a turn came to: the answer an earlier attempt stored, or the model's outcome. */
type Attempt = { kind: 'stored'; result: ChatTurnResult } | { kind: 'ran'; model: LlmModelRecord; outcome: AgentOutcome };

/** A chat turn failed for a reason the caller should hear about. `permanent`: retrying will not help. */
export class ChatTurnError extends DomainError {
  constructor(
    readonly kind: Exclude<FailureKind, 'validation'>,
    message: string,
    readonly permanent: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface ChatTurnLimits {
  historyBudgetChars: number;
  /** AGENT_TIMEOUT_S: the whole tool-calling loop (each stretch of it between pauses). */
  turnTimeoutMs: number;
  /** APPROVAL_TIMEOUT_S: undecided proposed calls count as declined after this. */
  approvalTimeoutMs: number;
}

export interface ChatTurnDependencies {
  models: { load(id: string): Promise<LlmModelRecord> };
  secrets: { resolve(name: string): Promise<string> };
  providers: { create(target: ProviderTarget, policy: ProviderCallPolicy): ChatProvider };
  sessions: SessionStore;
  /** The tool-calling loop, with the tools of usable MCP servers. */
  agent: Pick<AgentLoop, 'run'>;
  policy: ProviderCallPolicy;
  limits: ChatTurnLimits;
  /** Where a turn paused for its owner's decisions keeps its state. */
  approvals: ApprovalStore;
  /** Where MCP servers' questions to the turn's user wait for the answer; none: every question is cancelled. */
  elicitations?: ElicitationStore;
  /** CHAT_USER_MAX_TURNS: one user's turns running at once; none: no cap. */
  turnSlots?: TurnSlots;
  now?: () => number;
  /** Where every model call's tokens are counted, and the budget they count against; none: not kept. */
  /** A turn whose user's budgets are spent or held since it was asked does not start (nor go on after a pause): 429. */
  usage?: { store: Pick<TokenUsageStore, 'add'>; budget: Pick<TokenBudget, 'admit' | 'nextStep' | 'release'> };
  /**
   * Mints the turn's credential from the asking token, one per turn at a time (see
   * TokenService.delegate), and ends the one an attempt left behind; tools get none without it.
   */
  delegator?: {
    delegate(
      tokenId: string,
      options: { ttlMs: number; description: string; workId: string; firstAttempt?: boolean },
    ): Promise<DelegatedToken>;
    endDelegation(workId: string): Promise<boolean>;
  };
}

export interface TurnContext {
  /** Aborted when the turn is stopped (possibly before it starts). */
  signal: AbortSignal;
  /** No run of this turn started before (see JobContext.firstRun): none left a credential or an approval round. */
  firstRun?: boolean;
  report: (progress: ChatProgress) => Promise<void>;
  /** Where the turn's text goes as the model writes it (streaming); none: the answer comes whole. */
  text?: Pick<TurnTextWriter, 'step' | 'flush'>;
  /** Sets the turn aside, holding no worker, until `untilMs` or until it is resumed earlier (see JobContext.park). */
  park(untilMs: number, wakeIf?: () => Promise<boolean>): Promise<never>;
}

/** "the provider rejected the API key in secret 'openai-key' (openai, model 'gpt-4o', HTTP 401)" and the like. */
export function describeProviderFailure(error: ProviderError, model: LlmModelRecord, endpoint: string): string {
  const which = `${model.provider}, model '${model.name}'`;
  const secret = model.model_secret_key ? ` in secret '${model.model_secret_key}'` : '';
  switch (error.failure) {
    case 'auth':
      return `the provider rejected the API key${secret} (${which}, ${error.message})`;
    case 'rate_limited':
      return `the provider is rate limiting requests (${which}, ${error.message}); retry later`;
    case 'server':
      return `the provider failed (${which}, ${error.message})`;
    case 'timeout':
      return `the provider did not answer in time (${which}, ${error.message})`;
    case 'network':
      return `cannot reach the provider at ${endpoint} (${which}, ${error.message})`;
    case 'not_found':
      return `the provider does not know this model or path (${which}, ${error.message})`;
    case 'bad_request':
      return `the provider refused the request (${which}, ${error.message})`;
    case 'invalid_response':
      return `the provider's answer could not be read (${which}, ${error.message})`;
    case 'configuration':
      return `the model is not usable as configured (${which}): ${error.message}`;
  }
}

/**
 * One chat turn, as a worker runs it: re-read the model and its secret, load the session's
 * history, call the provider (with tools, step by step), store the turn once, answer.
 * A turn that was already stored (a retried job) answers what was stored without calling out.
 * A step proposing calls that may change something opens an approval round and parks the turn;
 * it runs again when every call is decided or the wait runs out, and goes on from that step.
 * A turn past its user's cap of turns at once is parked too, and runs once a slot is free.
 */
export class ChatTurnRunner {
  constructor(private readonly deps: ChatTurnDependencies) {}

  async run(data: ChatTurnData, context: TurnContext): Promise<ChatTurnResult> {
    if (context.signal.aborted) throw context.firstRun ? this.stopped() : await this.stoppedWhileAside(data.turnId);
    const now = this.deps.now?.() ?? Date.now();
    const round = context.firstRun ? NO_ROUND : await this.leftBehind(data, now);
    if (round.state === 'waiting') return context.park(round.expiresAt, () => this.decided(data.turnId));
    // One user's turns running at once are capped: past the cap this one is set aside, holding no worker, and tries again shortly.
    const slot = this.deps.turnSlots ? await this.deps.turnSlots.take(data.userId) : undefined;
    if (slot === null) return context.park(now + USER_SLOT_RETRY_MS);
    let attempt: Attempt;
    try {
      attempt = await this.attempt(data, context, round.state === 'settled' ? round.round : undefined);
    } finally {
      // Let go before the turn pauses: a turn waiting for decisions holds no slot.
      await slot?.release();
    }
    if (attempt.kind === 'stored') return attempt.result;
    const { model, outcome } = attempt;
    // Stopped while the answer came in: it is not stored.
    if (context.signal.aborted) throw this.stopped();
    if (outcome.kind === 'paused') return this.pause(data, outcome.paused, context);
    const { sessions } = this.deps;
    const created = new Date().toISOString();
    const messages: StoredMessage[] = outcome.messages.map((message) => ({ ...message, turn_id: data.turnId, created }));
    const response = outcome.reply.content;
    const result = await sessions.append(data.userId, data.sessionId, {
      turnId: data.turnId,
      generation: data.generation,
      model: model.name,
      title: data.message.slice(0, TITLE_LENGTH),
      response,
      messages,
    });
    if (result === 'duplicate') {
      // Another attempt stored this turn first: answer what it stored, so every reader agrees.
      const again = await sessions.load(data.userId, data.sessionId, data.turnId);
      if (again.stored) return { response: again.stored.response, sessionId: data.sessionId, model: again.stored.model, stored: true };
    }
    return { response, sessionId: data.sessionId, model: model.name, stored: result !== 'cleared', usage: outcome.usage };
  }

  /**
   * What earlier runs of the turn left, before this one does anything: the key of an attempt whose
   * worker died mid-turn (its job taken over) ends, and the approval round a pause opened is settled.
   */
  private async leftBehind(data: ChatTurnData, now: number): Promise<SettleOutcome> {
    const [, round] = await Promise.all([this.endCredential(data), this.deps.approvals.settle(data.turnId, now, this.lapsed(now))]);
    return round;
  }

  /**
   * Answers what an earlier attempt stored, or asks the model (with tools) with the session's
   * history, going on from the settled round's step if there is one.
   */
  private async attempt(data: ChatTurnData, context: TurnContext, resume: ApprovalRound | undefined): Promise<Attempt> {
    const loading = this.model(data.modelId);
    loading.catch(() => undefined); // a stored turn answers even if its model is gone since
    const { history, stored } = await this.deps.sessions.load(data.userId, data.sessionId, data.turnId);
    if (stored) {
      return { kind: 'stored', result: { response: stored.response, sessionId: data.sessionId, model: stored.model, stored: true } };
    }
    const model = await loading;
    const prompt: ChatMessage[] = [
      ...(model.system_prompt ? [{ role: 'system' as const, content: model.system_prompt }] : []),
      ...historyWithinBudget(history, this.deps.limits.historyBudgetChars),
    ];
    const step = {
      turnId: data.turnId,
      promptChars: data.message.length + prompt.reduce((sum, { content }) => sum + (content?.length ?? 0), 0),
    };
    await this.deps.usage?.budget.admit(data.userId, model, step);
    const endpoint = model.hosted_endpoint || 'the default endpoint';
    const delegated = await this.delegate(data, context.firstRun === true);
    const user = delegated?.token.username ?? data.userId;
    const deadline = linkedSignal([context.signal], this.deps.limits.turnTimeoutMs);
    const { signal } = deadline;
    let handedOut = false;
    try {
      const provider = this.deps.providers.create(await this.target(model), this.deps.policy);
      const credential: TurnCredential | undefined = delegated && {
        // Reading the key hands it out (to a tool that calls with it); a key never read is in no cache.
        get key() {
          handedOut = true;
          return delegated.key;
        },
        superuser: delegated.token.superuser,
        permissions: new Set(delegated.token.permissions),
        writeEnabled: delegated.token.write_enabled,
      };
      const { text } = context;
      const elicitations =
        this.deps.elicitations &&
        new TurnElicitations({
          store: this.deps.elicitations,
          turnId: data.turnId,
          report: context.report,
          timeoutMs: this.deps.limits.approvalTimeoutMs,
          ...(this.deps.now ? { now: this.deps.now } : {}),
        });
      const outcome = await this.deps.agent.run({
        provider,
        model,
        prompt,
        message: data.message,
        userId: data.userId,
        credential,
        signal,
        report: context.report,
        ...(text ? { text: (step: number) => text.step(step) } : {}),
        ...(resume
          ? {
              resume: { paused: resume.paused, decisions: resume.decisions },
              approvedCalls: {
                start: (callId: string) => this.deps.approvals.startCall(data.turnId, callId),
                finish: (callId: string, outcome: ToolCallOutcome) => this.deps.approvals.finishCall(data.turnId, callId, outcome),
              },
            }
          : {}),
        ...(this.deps.usage ? { meter: (tokens: TokenCount) => this.meter(user, data.userId, model, tokens, step) } : {}),
        // A server's sampling request spends from the same budgets: it goes ahead only where a step still fits.
        admit: async () => {
          await this.deps.usage?.budget.admit(data.userId, model, step);
        },
        ...(elicitations ? { elicit: elicitations.ask.bind(elicitations) } : {}),
        audit: {
          user,
          userId: data.userId,
          sessionId: data.sessionId,
          jobId: chatTurnJobId(data.turnId),
          secrets: delegated ? [delegated.key] : [],
        },
      });
      return { kind: 'ran', model, outcome };
    } catch (error) {
      if (context.signal.aborted) throw this.stopped(error);
      if (error instanceof ProviderError) {
        throw new ChatTurnError('upstream', describeProviderFailure(error, model, endpoint), !error.transient, { cause: error });
      }
      if (error instanceof SecretUnavailableError) throw new ChatTurnError('upstream', error.message, true, { cause: error });
      if (deadline.timedOut) {
        throw new ChatTurnError('upstream', `the turn took longer than ${Math.round(this.deps.limits.turnTimeoutMs / 1_000)} s`, true, {
          cause: error,
        });
      }
      throw error;
    } finally {
      deadline.dispose();
      // Every piece of text is out before the turn's outcome is; a paused turn holds nothing while it waits.
      await Promise.all([
        delegated?.revoke({ handedOut }),
        context.text?.flush(),
        this.deps.usage?.budget.release(data.userId, model, data.turnId),
      ]);
    }
  }

  /** Counts a model call's tokens; holds the turn's next step, or answers the budget's stop message when the budgets leave no room for it. */
  private async meter(
    user: string,
    userId: string,
    model: LlmModelRecord,
    tokens: TokenCount,
    step: TurnStep,
  ): Promise<string | undefined> {
    if (!this.deps.usage) return undefined;
    const { store, budget } = this.deps.usage;
    const at = new Date(this.deps.now?.() ?? Date.now());
    await store.add({ user, userId, model: model.name, provider: model.provider, tokens, at });
    return budget.nextStep(userId, model, step);
  }

  /** A turn no attempt will run again (failed for good, a stall limit included): ends the key an attempt may have left behind. */
  async abandoned(data: ChatTurnData): Promise<void> {
    await this.endCredential(data);
  }

  private async endCredential(data: ChatTurnData): Promise<void> {
    if (data.tokenId) await this.deps.delegator?.endDelegation(data.turnId);
  }

  /** Opens the round of the paused step's proposed calls, says so, and parks the turn until they are decided. */
  private async pause(data: ChatTurnData, paused: PausedAgent, context: TurnContext): Promise<never> {
    const { approvalTimeoutMs } = this.deps.limits;
    const expiresAt = (this.deps.now?.() ?? Date.now()) + approvalTimeoutMs;
    await this.deps.approvals.open(data.turnId, { paused, expiresAt }, approvalTimeoutMs + ROUND_KEPT_MS, data.userId);
    await context.report({
      type: 'approval_required',
      step: paused.step,
      approvals: paused.pending,
      expires: new Date(expiresAt).toISOString(),
    });
    return context.park(expiresAt, () => this.decided(data.turnId));
  }

  /** Every call of the turn's round is decided (the owner was quicker than the turn was set aside). */
  private async decided(turnId: string): Promise<boolean> {
    const round = await this.deps.approvals.get(turnId);
    return round !== null && round.paused.pending.every((call) => Object.hasOwn(round.decisions, call.id));
  }

  /** What an undecided call counts as once the wait ran out. */
  private lapsed(now: number): ApprovalDecision {
    return {
      approved: false,
      note: `no decision within ${Math.round(this.deps.limits.approvalTimeoutMs / 1_000)} s`,
      decided_by: null,
      decided_at: new Date(now).toISOString(),
    };
  }

  /** The turn's credential: the asking token's rights, for no longer than the turn may take. */
  private async delegate(data: ChatTurnData, firstRun: boolean): Promise<DelegatedToken | undefined> {
    if (!data.tokenId || !this.deps.delegator) return undefined;
    try {
      return await this.deps.delegator.delegate(data.tokenId, {
        ttlMs: this.deps.limits.turnTimeoutMs + DELEGATION_MARGIN_MS,
        description: `chat turn ${data.turnId} (delegated)`,
        workId: data.turnId,
        // A first run left nothing behind: the key of an earlier attempt is not looked for.
        ...(firstRun ? { firstAttempt: true } : {}),
      });
    } catch (error) {
      if (error instanceof AuthenticationError)
        throw new ChatTurnError('conflict', 'the token that asked for this turn was revoked or has expired', true, { cause: error });
      throw error;
    }
  }

  private stopped(cause?: unknown): ChatTurnError {
    return new ChatTurnError('conflict', TURN_STOPPED, true, { cause });
  }

  /** A turn stopped while it was set aside says whether it was waiting for its owner's decisions then. */
  private async stoppedWhileAside(turnId: string): Promise<ChatTurnError> {
    const round = await this.deps.approvals.get(turnId);
    const undecided = round?.paused.pending.some((call) => !Object.hasOwn(round.decisions, call.id)) ?? false;
    return undecided ? new ChatTurnError('conflict', `${TURN_STOPPED} while it was awaiting approval`, true) : this.stopped();
  }

  private async model(id: string): Promise<LlmModelRecord> {
    try {
      return await this.deps.models.load(id);
    } catch (error) {
      if (error instanceof NotFoundError)
        throw new ChatTurnError('conflict', 'the LLM model of this turn was deleted before it ran', true, { cause: error });
      throw error;
    }
  }

  private async target(model: LlmModelRecord): Promise<ProviderTarget> {
    return {
      provider: model.provider,
      model: model.name,
      hostedEndpoint: model.hosted_endpoint,
      apiVersion: model.api_version,
      // Without hosted_endpoint a configured default applies (OLLAMA_HOST, the provider's own API).
      trusted: !model.hosted_endpoint || model.destination_trusted === true,
      ...(model.model_secret_key ? { credential: await this.deps.secrets.resolve(model.model_secret_key) } : {}),
    };
  }
}
