import type { Schemas } from '../../src/api/openapi-types.js';
import { ApiError, errorMessage, type Api, type Page, type ServerEvent } from './api.js';
import { confirmAction } from './confirm.js';
import { byId, el, say, type Child } from './dom.js';
import { openFormDialog } from './form-dialog.js';
import { relativeTime } from './format.js';
import { renderMarkdown } from './markdown.js';
import { ElicitationView, type Elicitation, type ElicitationReply } from './elicitation-form.js';
import { OwnUsageView } from './own-usage.js';
import { startPage } from './page.js';
import { PlatformTokenControl } from './platform-token.js';

const CHAT = '/plugins/ai-ops/api/chat/';
/** The models a turn may name, readable by anyone who may chat. */
const MODELS = `${CHAT}models/`;
/** Session ids as the API accepts them. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** How often a turn is polled when its event stream broke off. */
const POLL_MS = 1_000;
/** Streamed text is rendered at most this often (Markdown is parsed and sanitized each time). */
const RENDER_MS = 250;
/** Stored tool results of failed calls start with this. */
const TOOL_ERROR_PREFIX = 'error: ';

type ChatModel = Schemas['ChatModel'];
type SessionSummary = Schemas['ChatSessionSummary'];
type ToolCall = Schemas['ChatToolCall'];
type SessionDetail = Schemas['ChatSession'];
type ChatAccepted = Schemas['ChatAccepted'];
type ChatJob = Schemas['ChatJob'];
type ChatJobList = { count: number; results: ChatJob[] };
type Approval = Schemas['ChatApproval'];
type Plan = NonNullable<Schemas['WritePlan']>;
type PlannedObject = Schemas['PlannedObject'];
/** A decision as the page shows it. */
type Decision = Pick<Schemas['ChatApprovalDecision'], 'approved' | 'note' | 'decided_by'>;

interface ToolResult {
  id: string;
  ok: boolean;
  content: string;
  /** The owner's decision, for a call that waited for one. */
  approval?: Decision;
}

/** What a decision says, in a few words. */
function decisionText({ approved, note, decided_by }: Decision): string {
  if (approved) return note ? `Approved: ${note}` : 'Approved';
  if (decided_by === null) return `Declined: ${note ?? 'no decision in time'}`;
  return note ? `Declined: ${note}` : 'Declined';
}

/** What the service calls the source of its own platform tools (no MCP server may take the name). */
const BUILTIN_SERVER = 'built-in';

/** An API request as a person reads it: method and path, then query parameters and body as formatted JSON. */
function describeCall({ tool, server, arguments: args }: Approval): HTMLElement[] {
  const { method, path, params, body, ...rest } = args;
  // Shown as a request to the platform only when it is one: a server's tool with the same
  // arguments would pass for it.
  if (server === BUILTIN_SERVER && typeof method === 'string' && typeof path === 'string') {
    const more = Object.keys(rest).length > 0 ? rest : undefined;
    return [
      el('p', { class: 'approval-request' }, el('code', {}, `${method.toUpperCase()} ${path}`)),
      ...(params !== undefined
        ? [el('p', { class: 'tool-heading' }, 'Query parameters'), el('pre', { class: 'approval-json' }, JSON.stringify(params, null, 2))]
        : []),
      ...(body !== undefined
        ? [el('p', { class: 'tool-heading' }, 'Body'), el('pre', { class: 'approval-json' }, JSON.stringify(body, null, 2))]
        : []),
      ...(more
        ? [el('p', { class: 'tool-heading' }, 'Options'), el('pre', { class: 'approval-json' }, JSON.stringify(more, null, 2))]
        : []),
    ];
  }
  return [el('p', { class: 'tool-heading' }, `Arguments of ${tool}`), el('pre', { class: 'approval-json' }, JSON.stringify(args, null, 2))];
}

/** What would happen to the objects of a plan once approved: nothing has happened while it is asked. */
const EFFECT_WORDS: Record<PlannedObject['effect'], string> = {
  create: 'would be created',
  update: 'would be changed',
  unchanged: 'would be left as they are',
  delete: 'would be deleted',
  other: 'would be acted on',
};

/** A name that may wrap only after an underscore, dot, slash or hyphen (`hosted_` / `endpoint`), never inside a word. */
function breakableName(name: string): Child[] {
  return name.split(/(?<=[_./-])/).flatMap((part, index) => (index === 0 ? [part] : [el('wbr'), part]));
}

/** A table with a caption, column headers and one row per entry (its first cell, a name, heads the row). */
function table(caption: string, columns: string[], rows: string[][], kind: string): HTMLElement {
  return el(
    'div',
    { class: 'table-scroll' },
    el(
      'table',
      { class: `plan-table plan-${kind}` },
      el('caption', {}, caption),
      el('thead', {}, el('tr', {}, ...columns.map((column) => el('th', { scope: 'col' }, column)))),
      el(
        'tbody',
        {},
        ...rows.map(([first, ...rest]) =>
          el('tr', {}, el('th', { scope: 'row' }, ...breakableName(first ?? '')), ...rest.map((cell) => el('td', {}, cell))),
        ),
      ),
    ),
  );
}

/** One object's changes: field, before and after (a new object: field and value), and the fields given that already had their value. */
function changesOf(object: PlannedObject): HTMLElement[] {
  const changing = object.changes.filter((change) => !change.unchanged);
  const already = object.changes.filter((change) => change.unchanged).map((change) => change.field);
  const created = object.effect === 'create';
  const caption = created ? `New: ${object.display}` : object.display;
  return [
    ...(changing.length
      ? [
          created
            ? table(
                caption,
                ['Field', 'Value'],
                changing.map((change) => [change.field, change.after]),
                'changes',
              )
            : table(
                caption,
                ['Field', 'Before', 'After'],
                changing.map((change) => [change.field, change.before ?? '', change.after]),
                'changes',
              ),
        ]
      : [el('p', { class: 'plan-object' }, el('strong', {}, object.display), object.effect === 'unchanged' ? ': no field changes' : '')]),
    ...(already.length ? [el('p', { class: 'plan-already' }, `Already so on ${object.display}: ${already.join(', ')}`)] : []),
  ];
}

/**
 * What a write will do, as it was planned before the user was asked: the operation in words, how
 * many objects and what happens to them, each change (before → after) or the objects a delete
 * removes, the notes, the errors fixed along the way, and why it is asked again.
 */
function planView(plan: Plan, { fixed, replanned }: Approval): HTMLElement {
  const effect = plan.objects[0]?.effect ?? 'other';
  const hidden = plan.count - plan.objects.length;
  const deletes = plan.objects.filter((object) => object.effect === 'delete');
  const others = plan.objects.filter((object) => object.effect !== 'delete');
  return el(
    'div',
    { class: 'plan' },
    el('p', { class: 'plan-summary' }, el('strong', {}, plan.summary)),
    replanned?.length
      ? el(
          'p',
          { class: 'plan-replanned' },
          `Asked again, nothing was written: ${replanned.join('; ')}. This is the plan as things are now.`,
        )
      : null,
    plan.count > 0
      ? el(
          'p',
          { class: 'plan-count', 'data-effect': effect },
          `${plan.count} ${plan.count === 1 ? 'object' : 'objects'} ${EFFECT_WORDS[effect]}`,
        )
      : null,
    deletes.length
      ? table(
          `To be deleted (${deletes.length}${hidden > 0 ? ` of ${plan.count}` : ''})`,
          ['Object', 'What would happen'],
          deletes.map((object) => [object.display, EFFECT_WORDS.delete]),
          'deletes',
        )
      : null,
    ...others.flatMap(changesOf),
    hidden > 0 ? el('p', { class: 'plan-more' }, `and ${hidden} more not shown`) : null,
    plan.notes.length ? el('ul', { class: 'plan-notes' }, ...plan.notes.map((note) => el('li', {}, note))) : null,
    fixed?.length
      ? el(
          'div',
          { class: 'plan-fixed' },
          el('p', { class: 'tool-heading' }, 'Fixed along the way'),
          el('ul', {}, ...fixed.map((error) => el('li', {}, error))),
        )
      : null,
  );
}

/** A proposed call as the user decides on it: its plan with the request tucked away, or the request itself. */
function describeProposal(approval: Approval): HTMLElement[] {
  if (!approval.plan) return describeCall(approval);
  return [
    planView(approval.plan, approval),
    el('details', { class: 'plan-request' }, el('summary', {}, 'Request as sent'), ...describeCall(approval)),
  ];
}

/**
 * A proposed call waiting for the user's decision: what it would do, an optional note, Approve and
 * Decline. Deciding sends it at once; the turn goes on once every proposed call is decided.
 */
class ApprovalView {
  readonly element: HTMLElement;
  private readonly note: HTMLInputElement;
  private readonly buttons: HTMLButtonElement[];
  private readonly outcome: HTMLElement;
  /** Once decided. */
  decision?: Decision;

  constructor(
    readonly approval: Approval,
    decide: (approve: boolean, note: string) => Promise<void>,
  ) {
    const noteId = `approval-note-${randomKey()}`;
    const source = approval.server === BUILTIN_SERVER ? ' (a built-in platform tool)' : ` (a tool of MCP server ${approval.server})`;
    const heading = el('p', { class: 'approval-heading' }, 'The agent asks to run ', el('code', {}, approval.tool), source);
    this.note = el('input', { id: noteId, type: 'text', maxlength: 2000, autocomplete: 'off', placeholder: 'Why (optional)' });
    const approve = el('button', { type: 'button', class: 'approve' }, 'Approve');
    const decline = el('button', { type: 'button', class: 'danger decline' }, 'Decline');
    this.buttons = [approve, decline];
    this.outcome = el('p', { class: 'approval-outcome', role: 'status', hidden: true });
    const send = async (approved: boolean) => {
      this.busy(true);
      try {
        await decide(approved, this.note.value.trim());
        this.decided({ approved, ...(this.note.value.trim() ? { note: this.note.value.trim() } : {}), decided_by: 'you' });
      } catch (failure) {
        this.busy(false);
        say(this.outcome, errorMessage(failure));
      }
    };
    approve.addEventListener('click', () => void send(true));
    decline.addEventListener('click', () => void send(false));
    this.element = el(
      'section',
      { class: 'approval', 'data-approval': approval.id, 'aria-label': `Approval of ${approval.tool}` },
      heading,
      ...describeProposal(approval),
      el('div', { class: 'approval-controls' }, el('label', { for: noteId }, 'Note'), this.note, approve, decline),
      this.outcome,
    );
  }

  private busy(busy: boolean): void {
    for (const button of this.buttons) button.disabled = busy;
    this.note.disabled = busy;
  }

  /** The turn ended before a decision: nothing is left to decide. */
  closed(reason: string): void {
    if (this.decision) return;
    this.element.dataset.decided = 'closed';
    this.element.querySelector('.approval-controls')?.remove();
    say(this.outcome, reason);
  }

  /** The decision is made (here, in another tab, or by the wait running out): no more buttons. */
  decided(decision: Decision): void {
    this.decision = decision;
    this.element.dataset.decided = decision.approved ? 'approved' : 'declined';
    this.element.querySelector('.approval-controls')?.remove();
    say(this.outcome, decisionText(decision));
  }
}

/** How a turn ended, as the page shows it. */
type TurnOutcome = 'completed' | 'failed' | 'stopped';

/** A random key (crypto.randomUUID needs a secure context; plain HTTP on a LAN is not one). */
function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One tool call of a reply: collapsed to its name and state, expanded to its arguments and result. */
class ToolCallView {
  readonly element: HTMLDetailsElement;
  private readonly state: HTMLElement;
  private readonly result: HTMLElement;

  private readonly decision: HTMLElement;

  constructor(call: ToolCall) {
    this.state = el('span', { class: 'tool-state' }, 'running');
    this.decision = el('p', { class: 'tool-decision', hidden: true });
    this.result = el('pre', { class: 'tool-result' }, el('span', { class: 'muted' }, 'waiting for the result…'));
    this.element = el(
      'details',
      { class: 'tool-call', 'data-state': 'running' },
      el('summary', {}, 'Tool ', el('code', {}, call.name), ' ', this.state),
      el('p', { class: 'tool-heading' }, 'Arguments'),
      el('pre', { class: 'tool-arguments' }, JSON.stringify(call.arguments, null, 2)),
      this.decision,
      el('p', { class: 'tool-heading' }, 'Result'),
      this.result,
    );
  }

  /** The call's server reported progress: shown on its summary line. */
  progressed({ progress, total, message }: { progress: number; total?: number; message?: string }): void {
    if (this.element.dataset.state !== 'running') return;
    const share = total ? `${progress}/${total}` : String(progress);
    this.state.textContent = `running (${share}${message ? `: ${message}` : ''})`;
  }

  /** The call waits for the user's decision. */
  waiting(): void {
    this.element.dataset.state = 'waiting';
    this.state.textContent = 'awaiting approval';
  }

  /** The turn ended (stopped, failed) before the call ran. */
  abandoned(): void {
    if (this.element.dataset.state !== 'waiting') return;
    this.element.dataset.state = 'abandoned';
    this.state.textContent = 'not run';
  }

  finish({ ok, content, approval }: ToolResult): void {
    this.element.dataset.state = ok ? 'ok' : approval && !approval.approved ? 'declined' : 'failed';
    this.state.textContent = ok ? 'done' : approval && !approval.approved ? 'declined' : 'failed';
    this.result.textContent = content;
    if (approval) say(this.decision, decisionText(approval));
  }
}

/** One model call of a reply: the text it wrote (streamed) and the tools it called. */
class StepView {
  readonly element: HTMLElement;
  readonly text: HTMLElement;
  readonly tools: HTMLElement;
  /** The step's text so far (Markdown). */
  source = '';

  constructor(readonly step: number) {
    this.text = el('div', { class: 'step-text markdown' });
    this.tools = el('div', { class: 'step-tools' });
    this.element = el('div', { class: 'step', 'data-step': step }, this.text, this.tools);
  }
}

/**
 * A reply of the agent: its progress, its steps (each model call's text as it is written, and the
 * tools it called: a step with tool calls is the model thinking aloud), then the answer
 * (Markdown, sanitized) or an error. Streamed text is rendered at most every RENDER_MS.
 */
class ReplyView {
  readonly element: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly stepList: HTMLElement;
  private readonly body: HTMLElement;
  private readonly steps = new Map<number, StepView>();
  private readonly calls = new Map<string, ToolCallView>();
  private readonly approvals = new Map<string, ApprovalView>();
  private readonly questions = new Map<string, ElicitationView>();
  private readonly dirty = new Set<StepView>();
  /** The servers a Connect link is shown for. */
  private readonly connects = new Set<string>();
  private renderTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the wait for decisions runs out (see approvalsRequired). */
  private lapseTimer: ReturnType<typeof setTimeout> | undefined;

  /** `decide` sends the user's decision on one proposed call of this turn; `answer`, their answer to an MCP server's question. */
  constructor(
    private readonly decide?: (id: string, approve: boolean, note: string) => Promise<void>,
    private readonly answerQuestion?: (id: string, reply: ElicitationReply) => Promise<void>,
  ) {
    this.progress = el('p', { class: 'progress', hidden: true });
    this.stepList = el('div', { class: 'steps' });
    this.body = el('div', { class: 'body markdown' });
    this.element = el('article', { class: 'message assistant', 'aria-label': 'Assistant' }, this.progress, this.stepList, this.body);
  }

  status(text: string): void {
    say(this.progress, text);
  }

  /** The view of model call `step`, made in its place among the others when new. */
  private stepView(step: number): StepView {
    let view = this.steps.get(step);
    if (!view) {
      view = new StepView(step);
      this.steps.set(step, view);
      const next = [...this.steps.values()].filter((other) => other.step > step).sort((a, b) => a.step - b.step)[0];
      if (next) next.element.before(view.element);
      else this.stepList.append(view.element);
    }
    return view;
  }

  /** Text of model call `step` as it is written: appended, or replacing the step's text (`reset`). */
  delta(step: number, reset: boolean, text: string): void {
    const view = this.stepView(step);
    view.source = reset ? text : view.source + text;
    this.dirty.add(view);
    this.status('Writing…');
    this.renderTimer ??= setTimeout(() => this.render(), RENDER_MS);
  }

  /** Re-renders the steps whose text changed (Markdown, sanitized). */
  private render(): void {
    clearTimeout(this.renderTimer);
    this.renderTimer = undefined;
    for (const view of this.dirty) view.text.replaceChildren(renderMarkdown(view.source));
    this.dirty.clear();
  }

  /** A step's tool calls from the stored turn (its text with them): those already shown are kept as they are. */
  toolCalls(thought: string, calls: ToolCall[], step: number): void {
    const fresh = calls.filter((call) => !this.calls.has(call.id));
    if (fresh.length === calls.length && thought.trim()) {
      const view = this.stepView(step);
      view.source = thought;
      this.dirty.add(view);
      this.render();
    }
    fresh.forEach((call) => this.toolCall(call, step));
  }

  toolCall(call: ToolCall, step: number): void {
    if (this.calls.has(call.id)) return;
    const view = new ToolCallView(call);
    this.calls.set(call.id, view);
    this.stepView(step).tools.append(view.element);
    this.status(`Calling ${call.name}…`);
  }

  toolResult(result: ToolResult): void {
    const decision = result.approval ?? this.approvals.get(result.id)?.decision;
    this.calls.get(result.id)?.finish({ ...result, ...(decision ? { approval: decision } : {}) });
    this.status('Thinking…');
  }

  /**
   * Proposed calls waiting for the user: each shown with Approve and Decline (once), until `expires`:
   * the service refuses a decision after it (by its clock; this page's may differ a little).
   */
  approvalsRequired(approvals: Approval[], step: number, expires?: string): void {
    const { decide } = this;
    for (const approval of approvals) {
      const known = this.approvals.get(approval.id);
      // A call is asked again (its plan moved since it was approved) after it was decided.
      if ((known && !(approval.replanned?.length && known.decision)) || !decide) continue;
      known?.element.remove();
      this.toolCall({ id: approval.id, name: approval.tool, arguments: approval.arguments }, step);
      this.calls.get(approval.id)?.waiting();
      const view = new ApprovalView(approval, (approve, note) => decide(approval.id, approve, note));
      this.approvals.set(approval.id, view);
      this.stepView(step).tools.append(view.element);
    }
    if (this.waitingForUser()) this.status('Waiting for your approval…');
    const expiresMs = expires === undefined ? NaN : Date.parse(expires);
    if (Number.isNaN(expiresMs)) return;
    clearTimeout(this.lapseTimer);
    this.lapseTimer = setTimeout(
      () => {
        for (const view of this.approvals.values()) view.closed('No decision came in time: it counts as declined.');
        this.status('Waiting for a worker…');
      },
      Math.max(0, expiresMs - Date.now()),
    );
  }

  approvalDecided(id: string, decision: Decision): void {
    this.approvals.get(id)?.decided(decision);
  }

  /** A tool call's progress, as its server reports it. */
  toolProgress(id: string, progress: { progress: number; total?: number; message?: string }): void {
    this.calls.get(id)?.progressed(progress);
  }

  /** An MCP server asks the user something while a call runs: a card with its form, under the call, once. */
  elicitationRequired(question: Elicitation, step: number): void {
    const { answerQuestion } = this;
    if (this.questions.has(question.id) || !answerQuestion) return;
    const view = new ElicitationView(question, (reply) => answerQuestion(question.id, reply));
    this.questions.set(question.id, view);
    this.stepView(step).tools.append(view.element);
    this.status('Waiting for your answer…');
  }

  elicitationAnswered(id: string, action: ElicitationReply['action'], byNobody: boolean): void {
    this.questions.get(id)?.closed(action, byNobody ? 'No answer came in time: it counts as cancelled.' : undefined);
    this.status('Thinking…');
  }

  /**
   * An OAuth server this turn went on without, its user not connected: a Connect link to its
   * sign-in (in a new tab), after which the question can be asked again. Once per server.
   */
  connectRequired(server: string, serverId: string, authorizationUrl: string): void {
    if (this.connects.has(serverId) || !/^https?:\/\//i.test(authorizationUrl)) return;
    this.connects.add(serverId);
    const link = el('a', { href: authorizationUrl, target: '_blank', rel: 'noopener noreferrer', class: 'button' }, `Connect ${server}`);
    this.stepList.before(
      el('p', { class: 'connect-required', role: 'status' }, `${server} needs your own account: `, link, ', then ask again.'),
    );
  }

  /** The latest model call shown (where a polled turn's proposed calls go). */
  lastStep(): number {
    return Math.max(1, ...this.steps.keys());
  }

  /** Some proposed call or question still has its buttons. */
  waitingForUser(): boolean {
    return [...this.approvals.values(), ...this.questions.values()].some((view) => view.element.dataset.decided === undefined);
  }

  /** The whole answer: it replaces the streamed text of the steps that called no tool (the last one wrote it). */
  answer(markdown: string): void {
    clearTimeout(this.lapseTimer);
    this.render();
    for (const view of this.steps.values()) if (view.tools.childElementCount === 0) view.element.remove();
    this.status('');
    this.body.replaceChildren(renderMarkdown(markdown));
  }

  /** Nothing waits any more: the calls that did not run are shown so, their approvals without buttons. */
  private endWaiting(reason: string): void {
    clearTimeout(this.lapseTimer);
    for (const view of this.approvals.values()) view.closed(reason);
    for (const view of this.questions.values()) view.closed('ended', reason);
    for (const view of this.calls.values()) view.abandoned();
  }

  fail(message: string): void {
    this.render();
    this.endWaiting('The turn failed before this was decided; it was not run.');
    this.status('');
    this.element.classList.add('failed');
    this.body.replaceChildren(el('p', { class: 'error' }, message));
  }

  /** The user stopped this turn: not an error, and nothing was stored. */
  stopped(): void {
    this.render();
    this.endWaiting('The turn was stopped before this was decided; it was not run.');
    this.status('');
    this.body.replaceChildren(
      el('p', { class: 'muted' }, 'Stopped. This turn is not kept in the session; your message is back in the composer.'),
    );
  }
}

/** Shows a stored turn (its messages after the question) in a reply: each assistant message is one model call. */
function replayTurn(messages: Schemas['ChatMessage'][], reply: ReplyView): void {
  let step = 0;
  for (const message of messages) {
    if (message.role === 'assistant') {
      step++;
      if (message.tool_calls?.length) reply.toolCalls(message.content, message.tool_calls, step);
      else reply.answer(message.content);
    } else if (message.role === 'tool') {
      const ok = !message.content.startsWith(TOOL_ERROR_PREFIX) && message.approval?.approved !== false;
      reply.toolResult({
        id: message.tool_call_id ?? '',
        ok,
        content: message.content,
        ...(message.approval ? { approval: message.approval } : {}),
      });
    }
  }
}

/** The turn this tab is following, kept so that a reload finds it again (this tab only). */
interface RunningTurn {
  sessionId: string;
  jobId: string;
  message: string;
}

const RUNNING_KEY = 'aiops.running-turn';

function runningTurn(): RunningTurn | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(RUNNING_KEY) ?? 'null') as Partial<RunningTurn> | null;
    return saved && typeof saved.sessionId === 'string' && typeof saved.jobId === 'string' && typeof saved.message === 'string'
      ? (saved as RunningTurn)
      : null;
  } catch {
    return null;
  }
}

function userMessage(text: string): HTMLElement {
  return el('article', { class: 'message user', 'aria-label': 'You' }, el('div', { class: 'body' }, text));
}

class ChatPage {
  private readonly log = byId('log', HTMLDivElement);
  private readonly heading = byId('session-heading', HTMLHeadingElement);
  private readonly error = byId('chat-error', HTMLElement);
  private readonly form = byId('composer', HTMLFormElement);
  private readonly input = byId('message', HTMLTextAreaElement);
  private readonly send = byId('send', HTMLButtonElement);
  private readonly stop = byId('stop', HTMLButtonElement);
  private readonly model = byId('model', HTMLSelectElement);
  private readonly modelHint = byId('model-hint', HTMLElement);
  private readonly sessionList = byId('session-list', HTMLUListElement);
  private readonly sessionsNote = byId('sessions-note', HTMLElement);
  private readonly usage: OwnUsageView;
  private sessionId: string | null = null;
  private busy = false;
  /** The turn running now, and whether the user asked to stop it. */
  private running: { jobId: string; stopping: boolean } | null = null;
  private modelsUsable = true;

  constructor(private readonly api: Api) {
    this.usage = new OwnUsageView(api);
  }

  async start(): Promise<void> {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.ask();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.form.requestSubmit();
      } else if (event.key === 'Escape' && this.running) {
        event.preventDefault();
        void this.stopTurn();
      }
    });
    this.stop.addEventListener('click', () => void this.stopTurn());
    this.model.addEventListener('change', () => this.usage.showBudgetFor(this.model.value));
    byId('new-session', HTMLButtonElement).addEventListener('click', () => this.newSession());
    this.sessionList.addEventListener('click', (event) => {
      const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-session]') : null;
      const id = button?.dataset.session;
      if (!button || !id) return;
      const title = button.dataset.title ?? '';
      if (button.dataset.do === 'rename') void this.renameSession(id, title);
      else if (button.dataset.do === 'delete') void this.deleteSession(id, title);
      else void this.openSession(id);
    });
    const fromUrl = location.hash.slice(1);
    const platformToken = new PlatformTokenControl(this.api, (message) => say(this.error, message));
    await Promise.all([this.loadModels(), this.loadSessions(), platformToken.start(), this.usage.start()]);
    this.usage.showBudgetFor(this.model.value);
    if (SESSION_ID.test(fromUrl)) await this.openSession(fromUrl);
    else this.newSession();
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.log.setAttribute('aria-busy', String(busy));
    this.send.disabled = busy || !this.modelsUsable;
    this.send.textContent = busy ? 'Working…' : 'Send';
    this.stop.hidden = !busy;
    this.stop.disabled = !this.running || this.running.stopping;
  }

  /** Asks the server to stop the running turn; its event stream then reports the stop. */
  private async stopTurn(): Promise<void> {
    const running = this.running;
    if (!running || running.stopping) return;
    running.stopping = true;
    this.setBusy(this.busy);
    try {
      await this.api.request('DELETE', `${CHAT}jobs/${encodeURIComponent(running.jobId)}/`);
    } catch (failure) {
      // 409: the turn finished meanwhile, and its answer is on its way.
      if (!(failure instanceof ApiError && failure.status === 409)) say(this.error, errorMessage(failure));
    }
  }

  private setSession(id: string | null, title: string): void {
    this.sessionId = id;
    this.heading.textContent = title;
    history.replaceState(null, '', id ? `#${id}` : location.pathname + location.search);
    for (const button of this.sessionList.querySelectorAll<HTMLButtonElement>('button.session')) {
      if (button.dataset.session === id) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
  }

  private newSession(): void {
    if (this.busy) return;
    this.setSession(null, 'New session');
    this.log.replaceChildren();
    say(this.error, '');
    this.input.focus();
  }

  private async loadModels(): Promise<void> {
    try {
      const { results } = await this.api.get<Page<ChatModel>>(MODELS);
      this.modelsUsable = results.length > 0;
      const chosen = results.find((model) => model.is_default) ?? results[0];
      this.model.replaceChildren(
        ...results.map((model) =>
          el(
            'option',
            { value: model.name, selected: model === chosen },
            `${model.name} (${model.provider}${model.is_default ? ', default' : ''})`,
          ),
        ),
      );
      this.model.disabled = !this.modelsUsable;
      say(
        this.modelHint,
        this.modelsUsable
          ? ''
          : 'No LLM model is configured yet: an administrator adds one (and makes it the default) before anyone can chat.',
      );
    } catch (failure) {
      // Without the list the default model answers.
      this.model.replaceChildren(el('option', { value: '' }, 'Default model'));
      this.model.disabled = true;
      say(this.modelHint, `The LLM models could not be loaded (${errorMessage(failure)}), so the default model answers.`);
    }
    this.setBusy(this.busy);
  }

  private async loadSessions(): Promise<void> {
    try {
      const [page, waiting] = await Promise.all([
        this.api.get<Page<SessionSummary>>(`${CHAT}sessions/?limit=100`),
        // Turns that wait for this user's decisions, whichever page or device asked them.
        this.api.get<ChatJobList>(`${CHAT}jobs/`).catch(() => ({ count: 0, results: [] })),
      ]);
      const waitingIn = new Set(waiting.results.map((job) => job.session_id));
      const sessionButton = (id: string, title: string, meta: string) =>
        el(
          'button',
          {
            type: 'button',
            class: `session${waitingIn.has(id) ? ' waiting' : ''}`,
            'data-session': id,
            'aria-current': id === this.sessionId ? 'true' : undefined,
          },
          el('span', { class: 'session-title' }, title),
          el('span', { class: 'session-meta' }, waitingIn.has(id) ? `${meta} · waiting for your approval` : meta),
        );
      const listed = new Set(page.results.map((session) => session.id));
      // A new session whose first turn waits is stored only once that turn ends.
      const unstored = waiting.results.filter(
        (job, index, all) => !listed.has(job.session_id) && all.findIndex((other) => other.session_id === job.session_id) === index,
      );
      this.sessionList.replaceChildren(
        ...unstored.map((job) =>
          el('li', { class: 'session-row' }, sessionButton(job.session_id, job.message.trim().slice(0, 80) || 'Untitled', 'first turn')),
        ),
        ...page.results.map((session) => {
          const title = session.title || 'Untitled';
          const action = (what: 'rename' | 'delete', label: string) =>
            el(
              'button',
              {
                type: 'button',
                class: `session-action${what === 'delete' ? ' danger' : ''}`,
                'data-session': session.id,
                'data-title': title,
                'data-do': what,
                'aria-label': `${label} session: ${title}`,
              },
              label,
            );
          return el(
            'li',
            { class: 'session-row' },
            sessionButton(
              session.id,
              title,
              `${session.turns} ${session.turns === 1 ? 'turn' : 'turns'} · ${relativeTime(session.updated)}`,
            ),
            el('span', { class: 'session-actions' }, action('rename', 'Rename'), action('delete', 'Delete')),
          );
        }),
      );
      this.sessionsNote.textContent = page.count === 0 && unstored.length === 0 ? 'No sessions yet.' : '';
    } catch (failure) {
      this.sessionsNote.textContent = `The sessions could not be loaded: ${errorMessage(failure)}`;
    }
  }

  private async openSession(id: string): Promise<void> {
    if (this.busy) return;
    say(this.error, '');
    let session: SessionDetail;
    try {
      session = await this.api.get<SessionDetail>(`${CHAT}sessions/${encodeURIComponent(id)}/`);
    } catch (failure) {
      const missing = failure instanceof ApiError && failure.status === 404;
      const turn = missing ? await this.unfinishedTurn(id) : null;
      if (turn) {
        // A new session whose first turn is still running: nothing is stored yet.
        this.setSession(id, turn.message.trim().slice(0, 80));
        this.log.replaceChildren();
        await this.resume(id);
        return;
      }
      this.newSession();
      say(this.error, missing ? 'That session is gone (cleared, or expired after a while without a turn).' : errorMessage(failure));
      return;
    }
    this.setSession(session.id, session.title || 'Untitled');
    if ([...this.model.options].some((option) => option.value === session.model)) this.model.value = session.model;
    this.log.replaceChildren();
    const questions = session.messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
    questions.forEach((at, turn) => {
      this.log.append(userMessage(session.messages[at]!.content));
      const answers = session.messages.slice(at + 1, questions[turn + 1]).filter((message) => message.role !== 'system');
      if (answers.length === 0) return;
      const reply = new ReplyView();
      this.log.append(reply.element);
      replayTurn(answers, reply);
    });
    this.log.scrollTop = this.log.scrollHeight;
    await this.resume(session.id);
  }

  /**
   * The session's turn still to follow: the one this tab was following (after a reload), or one
   * that waits for the user's decisions, whichever page or device asked it.
   */
  private async unfinishedTurn(sessionId: string): Promise<RunningTurn | null> {
    const followed = runningTurn();
    if (followed?.sessionId === sessionId) return followed;
    const waiting = await this.api.get<ChatJobList>(`${CHAT}jobs/?session_id=${encodeURIComponent(sessionId)}`).catch(() => null);
    const [job] = waiting?.results ?? [];
    return job ? { sessionId, jobId: job.job_id, message: job.message } : null;
  }

  /** The session's unfinished turn (see unfinishedTurn), if it still runs, is followed again. */
  private async resume(sessionId: string): Promise<void> {
    const turn = await this.unfinishedTurn(sessionId);
    if (!turn) return;
    const job = await this.api.get<ChatJob>(`${CHAT}jobs/${encodeURIComponent(turn.jobId)}/`).catch(() => null);
    if (!job || job.status === 'completed' || job.status === 'failed') {
      // Over: the session shows it (or it was not kept).
      sessionStorage.removeItem(RUNNING_KEY);
      return;
    }
    this.setBusy(true);
    this.log.append(userMessage(turn.message));
    const reply = this.replyView(turn.jobId);
    this.log.append(reply.element);
    reply.status('Thinking…');
    await this.runTurn(turn, reply);
  }

  private async renameSession(id: string, title: string): Promise<void> {
    const renamed = await openFormDialog({
      title: 'Rename session',
      submit: 'Rename',
      fields: [{ name: 'title', label: 'Title', kind: 'text', required: true, maxLength: 200 }],
      values: { title },
      send: async (body) => {
        const session = await this.api.request<SessionSummary>('PATCH', `${CHAT}sessions/${encodeURIComponent(id)}/`, { body });
        if (this.sessionId === id) this.heading.textContent = session.title;
      },
    });
    if (renamed) await this.loadSessions();
  }

  /** Deletes a session for good, after asking; a turn still running for it is answered but not stored. */
  private async deleteSession(id: string, title: string): Promise<void> {
    if (this.busy && id === this.sessionId) {
      say(this.error, 'Stop the running turn before deleting its session.');
      return;
    }
    const confirmed = await confirmAction({
      title: `Delete session “${title}”?`,
      message: 'Its messages are deleted for good.',
      action: 'Delete session',
    });
    if (!confirmed) return;
    try {
      await this.api.request('DELETE', `${CHAT}sessions/${encodeURIComponent(id)}/`);
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.status === 404)) {
        say(this.error, errorMessage(failure));
        return;
      }
    }
    if (id === this.sessionId) this.newSession();
    await this.loadSessions();
    // The row that had focus is gone.
    byId('new-session', HTMLButtonElement).focus();
  }

  /** A reply to a turn of this page: its proposed calls are decided through the turn's job (`jobId`, or known later). */
  private replyView(jobId: string | (() => string)): ReplyView {
    const job = typeof jobId === 'string' ? () => jobId : jobId;
    return new ReplyView(
      async (id, approve, note) => {
        await this.api.request('POST', `${CHAT}jobs/${encodeURIComponent(job())}/approvals/`, {
          body: { decisions: [{ id, approve, ...(note ? { note } : {}) }] },
        });
      },
      async (id, reply) => {
        await this.api.request('POST', `${CHAT}jobs/${encodeURIComponent(job())}/elicitations/${encodeURIComponent(id)}/`, { body: reply });
      },
    );
  }

  /** A message that was not answered goes back to the composer, ahead of anything written since. */
  private returnToComposer(message: string): void {
    this.input.value = this.input.value.trim() ? `${message}\n\n${this.input.value}` : message;
    this.input.setSelectionRange(message.length, message.length);
  }

  private async ask(): Promise<void> {
    const message = this.input.value;
    if (this.busy || !this.modelsUsable) return;
    if (!message.trim()) {
      say(this.error, 'Write a message first.');
      this.input.focus();
      return;
    }
    say(this.error, '');
    this.input.value = '';
    this.setBusy(true);
    this.log.append(userMessage(message));
    let jobId = '';
    const reply = this.replyView(() => jobId);
    this.log.append(reply.element);
    reply.status('Sending…');
    this.log.scrollTop = this.log.scrollHeight;
    let accepted: ChatAccepted;
    try {
      accepted = await this.api.request<ChatAccepted>('POST', CHAT, {
        body: {
          message,
          ...(this.sessionId ? { session_id: this.sessionId } : {}),
          ...(this.model.value ? { model: this.model.value } : {}),
        },
        // The same key on a retried request gets the same turn, never a second one.
        headers: { prefer: 'respond-async', 'idempotency-key': randomKey() },
      });
      jobId = accepted.job_id;
      if (this.sessionId !== accepted.session_id) this.setSession(accepted.session_id, message.trim().slice(0, 80));
    } catch (failure) {
      reply.fail(errorMessage(failure));
      // Not asked (refused): the text is the user's to send again.
      this.returnToComposer(message);
      this.setBusy(false);
      this.input.focus();
      // A refusal for a spent budget: the view says so.
      await this.usage.refresh();
      return;
    }
    await this.runTurn({ sessionId: accepted.session_id, jobId: accepted.job_id, message }, reply);
  }

  /** Follows a turn to its end, remembered for a reload meanwhile; a stopped turn's text returns to the composer. */
  private async runTurn(turn: RunningTurn, reply: ReplyView): Promise<void> {
    sessionStorage.setItem(RUNNING_KEY, JSON.stringify(turn));
    this.running = { jobId: turn.jobId, stopping: false };
    this.setBusy(true);
    let outcome: TurnOutcome = 'failed';
    try {
      outcome = await this.follow(turn.jobId, reply);
      if (outcome === 'completed') await this.backfill(turn.sessionId, reply);
    } catch (failure) {
      reply.fail(errorMessage(failure));
    } finally {
      sessionStorage.removeItem(RUNNING_KEY);
      if (outcome === 'stopped') this.returnToComposer(turn.message);
      this.running = null;
      this.setBusy(false);
      this.log.scrollTop = this.log.scrollHeight;
      this.input.focus();
    }
    await Promise.all([this.loadSessions(), this.usage.refresh()]);
  }

  /**
   * Follows a turn through its event stream; polls the job if the stream ends early (a proxy cut
   * it). Resolves to how the turn ended.
   */
  private async follow(jobId: string, reply: ReplyView): Promise<TurnOutcome> {
    try {
      for await (const event of this.api.events(`${CHAT}jobs/${encodeURIComponent(jobId)}/events`)) {
        const outcome = this.apply(event, reply);
        if (outcome !== 'running') return outcome;
        this.log.scrollTop = this.log.scrollHeight;
      }
    } catch (failure) {
      if (failure instanceof ApiError) throw failure;
    }
    for (;;) {
      const job = await this.api.get<ChatJob>(`${CHAT}jobs/${encodeURIComponent(jobId)}/`).catch((failure: unknown) => {
        // A turn stopped before a worker took it is dropped from the queue.
        if (this.running?.stopping && failure instanceof ApiError && failure.status === 404) return null;
        throw failure;
      });
      if (!job) {
        reply.stopped();
        return 'stopped';
      }
      if (job.status === 'completed') {
        reply.answer(job.response ?? '');
        return 'completed';
      }
      if (job.status === 'failed') {
        if (this.running?.stopping) {
          reply.stopped();
          return 'stopped';
        }
        reply.fail(job.error ?? 'The turn failed.');
        return 'failed';
      }
      for (const question of job.elicitations ?? [])
        if (question.status === 'pending') reply.elicitationRequired(question, reply.lastStep());
        else reply.elicitationAnswered(question.id, question.status, false);
      if (job.status === 'awaiting_approval') reply.approvalsRequired(job.approvals ?? [], reply.lastStep(), job.approval_expires);
      else reply.status(job.status === 'active' ? 'Thinking…' : 'Waiting for a worker…');
      await sleep(POLL_MS);
    }
  }

  /**
   * When the event stream was cut and the turn was followed by polling, its tool calls were not
   * all seen: they are added from the stored turn (the messages after the last question).
   */
  private async backfill(sessionId: string, reply: ReplyView): Promise<void> {
    let session: SessionDetail;
    try {
      session = await this.api.get<SessionDetail>(`${CHAT}sessions/${encodeURIComponent(sessionId)}/`);
    } catch {
      return; // The answer is shown already; only earlier tool calls could be missing from it.
    }
    const lastQuestion = session.messages.map((message) => message.role).lastIndexOf('user');
    replayTurn(session.messages.slice(lastQuestion + 1), reply);
  }

  /** Shows one event of a turn, and says whether the turn is still running. */
  private apply({ event, data }: ServerEvent, reply: ReplyView): 'running' | TurnOutcome {
    const payload = JSON.parse(data) as Record<string, unknown>;
    switch (event) {
      case 'queued':
        // A turn set aside for decisions is queued too.
        if (!reply.waitingForUser()) reply.status('Waiting for a worker…');
        return 'running';
      case 'active':
        reply.status('Thinking…');
        return 'running';
      case 'delta':
        reply.delta(Number(payload.step) || 1, payload.reset === true, typeof payload.text === 'string' ? payload.text : '');
        return 'running';
      case 'tool_call':
        reply.toolCall(payload as unknown as ToolCall, Number(payload.step) || 1);
        return 'running';
      case 'tool_result':
        reply.toolResult(payload as unknown as ToolResult);
        return 'running';
      case 'approval_required':
        reply.approvalsRequired(
          Array.isArray(payload.approvals) ? (payload.approvals as Approval[]) : [],
          Number(payload.step) || 1,
          typeof payload.expires === 'string' ? payload.expires : undefined,
        );
        return 'running';
      case 'approval_decided':
        reply.approvalDecided(String(payload.id), {
          approved: payload.approved === true,
          ...(typeof payload.note === 'string' ? { note: payload.note } : {}),
          decided_by: typeof payload.decided_by === 'string' ? payload.decided_by : null,
        });
        return 'running';
      case 'tool_progress':
        reply.toolProgress(String(payload.id), {
          progress: Number(payload.progress) || 0,
          ...(typeof payload.total === 'number' ? { total: payload.total } : {}),
          ...(typeof payload.message === 'string' ? { message: payload.message } : {}),
        });
        return 'running';
      case 'elicitation_required':
        reply.elicitationRequired(payload.elicitation as Elicitation, Number(payload.step) || 1);
        return 'running';
      case 'elicitation_answered':
        reply.elicitationAnswered(String(payload.id), payload.action as ElicitationReply['action'], payload.answered_by === null);
        return 'running';
      case 'connect_required':
        reply.connectRequired(String(payload.server), String(payload.server_id), String(payload.authorization_url));
        return 'running';
      case 'completed':
        reply.answer(typeof payload.response === 'string' ? payload.response : '');
        return 'completed';
      case 'failed':
        if (this.running?.stopping) {
          reply.stopped();
          return 'stopped';
        }
        reply.fail(typeof payload.error === 'string' ? payload.error : 'The turn failed.');
        return 'failed';
      default:
        return 'running';
    }
  }
}

startPage({
  check: async (api) => {
    await api.get(`${CHAT}sessions/?limit=1`);
  },
  start: (api) => new ChatPage(api).start(),
});
