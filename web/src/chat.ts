import { ApiError, errorMessage, type Api, type Page, type ServerEvent } from './api.js';
import { byId, el, say } from './dom.js';
import { relativeTime } from './format.js';
import { renderMarkdown } from './markdown.js';
import { startPage } from './page.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const MODELS = '/api/plugins/ai-ops/llm-models/?limit=1000';
/** Session ids as the API accepts them. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** How often a turn is polled when its event stream broke off. */
const POLL_MS = 1_000;
/** Stored tool results of failed calls start with this. */
const TOOL_ERROR_PREFIX = 'error: ';

interface ChatModel {
  name: string;
  provider: string;
  is_default: boolean;
}

interface SessionSummary {
  id: string;
  title: string;
  model: string;
  turns: number;
  updated: string;
}

interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

interface ToolResult {
  id: string;
  ok: boolean;
  content: string;
}

type StoredMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

interface SessionDetail extends SessionSummary {
  messages: StoredMessage[];
}

interface ChatAccepted {
  job_id: string;
  session_id: string;
}

interface ChatJob {
  status: 'queued' | 'active' | 'completed' | 'failed';
  response?: string;
  error?: string;
}

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

  constructor(call: ToolCall) {
    this.state = el('span', { class: 'tool-state' }, 'running');
    this.result = el('pre', { class: 'tool-result' }, el('span', { class: 'muted' }, 'waiting for the result…'));
    this.element = el(
      'details',
      { class: 'tool-call', 'data-state': 'running' },
      el('summary', {}, 'Tool ', el('code', {}, call.name), ' ', this.state),
      el('p', { class: 'tool-heading' }, 'Arguments'),
      el('pre', { class: 'tool-arguments' }, JSON.stringify(call.arguments, null, 2)),
      el('p', { class: 'tool-heading' }, 'Result'),
      this.result,
    );
  }

  finish({ ok, content }: ToolResult): void {
    this.element.dataset.state = ok ? 'ok' : 'failed';
    this.state.textContent = ok ? 'done' : 'failed';
    this.result.textContent = content;
  }
}

/** A reply of the agent: its progress, its tool calls, then the answer (Markdown, sanitized) or an error. */
class ReplyView {
  readonly element: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly tools: HTMLElement;
  private readonly body: HTMLElement;
  private readonly calls = new Map<string, ToolCallView>();

  constructor() {
    this.progress = el('p', { class: 'progress', hidden: true });
    this.tools = el('div', { class: 'tools' });
    this.body = el('div', { class: 'body markdown' });
    this.element = el('article', { class: 'message assistant', 'aria-label': 'Assistant' }, this.progress, this.tools, this.body);
  }

  status(text: string): void {
    say(this.progress, text);
  }

  /** Text the model wrote alongside its tool calls (its reasoning so far). */
  private thought(markdown: string): void {
    if (markdown.trim()) this.tools.append(el('div', { class: 'thought markdown' }, renderMarkdown(markdown)));
  }

  /** A step's tool calls from the stored turn: those already shown (streamed) are kept as they are. */
  toolCalls(thought: string, calls: ToolCall[]): void {
    const fresh = calls.filter((call) => !this.calls.has(call.id));
    if (fresh.length === calls.length) this.thought(thought);
    fresh.forEach((call) => this.toolCall(call));
  }

  toolCall(call: ToolCall): void {
    if (this.calls.has(call.id)) return;
    const view = new ToolCallView(call);
    this.calls.set(call.id, view);
    this.tools.append(view.element);
    this.status(`Calling ${call.name}…`);
  }

  toolResult(result: ToolResult): void {
    this.calls.get(result.id)?.finish(result);
    this.status('Thinking…');
  }

  answer(markdown: string): void {
    this.status('');
    this.body.replaceChildren(renderMarkdown(markdown));
  }

  fail(message: string): void {
    this.status('');
    this.element.classList.add('failed');
    this.body.replaceChildren(el('p', { class: 'error' }, message));
  }

  /** The user stopped this turn: not an error, and nothing was stored. */
  stopped(): void {
    this.status('');
    this.body.replaceChildren(el('p', { class: 'muted' }, 'Stopped. This turn is not kept in the session.'));
  }
}

/** Shows a stored assistant or tool message in a reply. */
function replay(message: StoredMessage, reply: ReplyView): void {
  if (message.role === 'assistant') {
    if (message.tool_calls?.length) reply.toolCalls(message.content, message.tool_calls);
    else reply.answer(message.content);
  } else if (message.role === 'tool') {
    reply.toolResult({ id: message.tool_call_id, ok: !message.content.startsWith(TOOL_ERROR_PREFIX), content: message.content });
  }
}

function userMessage(text: string): HTMLElement {
  return el('article', { class: 'message user', 'aria-label': 'You' }, el('div', { class: 'body' }, text));
}

class ChatPage {
  private readonly log = byId('log', HTMLDivElement);
  private readonly heading = byId('conversation-heading', HTMLHeadingElement);
  private readonly error = byId('chat-error', HTMLElement);
  private readonly form = byId('composer', HTMLFormElement);
  private readonly input = byId('message', HTMLTextAreaElement);
  private readonly send = byId('send', HTMLButtonElement);
  private readonly stop = byId('stop', HTMLButtonElement);
  private readonly model = byId('model', HTMLSelectElement);
  private readonly modelHint = byId('model-hint', HTMLElement);
  private readonly clear = byId('clear-session', HTMLButtonElement);
  private readonly sessionList = byId('session-list', HTMLUListElement);
  private readonly sessionsNote = byId('sessions-note', HTMLElement);
  private sessionId: string | null = null;
  private busy = false;
  /** The turn running now, and whether the user asked to stop it. */
  private running: { jobId: string; stopping: boolean } | null = null;
  private modelsUsable = true;

  constructor(private readonly api: Api) {}

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
    byId('new-session', HTMLButtonElement).addEventListener('click', () => this.newSession());
    this.clear.addEventListener('click', () => void this.clearSession());
    this.sessionList.addEventListener('click', (event) => {
      const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-session]') : null;
      if (button?.dataset.session) void this.openSession(button.dataset.session);
    });
    const fromUrl = location.hash.slice(1);
    await Promise.all([this.loadModels(), this.loadSessions()]);
    if (SESSION_ID.test(fromUrl)) await this.openSession(fromUrl);
    else this.newSession();
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.log.setAttribute('aria-busy', String(busy));
    this.send.disabled = busy || !this.modelsUsable;
    this.clear.disabled = busy || this.sessionId === null;
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
    this.clear.disabled = this.busy || id === null;
    for (const button of this.sessionList.querySelectorAll<HTMLButtonElement>('button[data-session]')) {
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
          el('option', { value: model.name, selected: model === chosen }, `${model.name} (${model.provider}${model.is_default ? ', default' : ''})`),
        ),
      );
      this.model.disabled = !this.modelsUsable;
      say(this.modelHint, this.modelsUsable ? '' : 'No LLM model is configured yet: an administrator adds one (and makes it the default) before anyone can chat.');
    } catch (failure) {
      // Without the list (no permission to read it, or a failure) the default model answers.
      this.model.replaceChildren(el('option', { value: '' }, 'Default model'));
      this.model.disabled = true;
      say(
        this.modelHint,
        failure instanceof ApiError && failure.status === 403
          ? 'This token cannot list the LLM models, so the default model answers.'
          : `The LLM models could not be loaded (${errorMessage(failure)}), so the default model answers.`,
      );
    }
    this.setBusy(this.busy);
  }

  private async loadSessions(): Promise<void> {
    try {
      const page = await this.api.get<Page<SessionSummary>>(`${CHAT}sessions/?limit=100`);
      this.sessionList.replaceChildren(
        ...page.results.map((session) =>
          el(
            'li',
            {},
            el(
              'button',
              { type: 'button', class: 'session', 'data-session': session.id, 'aria-current': session.id === this.sessionId ? 'true' : undefined },
              el('span', { class: 'session-title' }, session.title || 'Untitled'),
              el('span', { class: 'session-meta' }, `${session.turns} ${session.turns === 1 ? 'turn' : 'turns'} · ${relativeTime(session.updated)}`),
            ),
          ),
        ),
      );
      this.sessionsNote.textContent = page.count === 0 ? 'No sessions yet.' : '';
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
      this.newSession();
      say(this.error, failure instanceof ApiError && failure.status === 404 ? 'That session is gone (cleared, or expired after a while without a turn).' : errorMessage(failure));
      return;
    }
    this.setSession(session.id, session.title || 'Untitled');
    if ([...this.model.options].some((option) => option.value === session.model)) this.model.value = session.model;
    this.log.replaceChildren();
    let reply: ReplyView | null = null;
    for (const message of session.messages) {
      if (message.role === 'user') {
        this.log.append(userMessage(message.content));
        reply = null;
      } else if (message.role !== 'system') {
        if (!reply) {
          reply = new ReplyView();
          this.log.append(reply.element);
        }
        replay(message, reply);
      }
    }
    this.log.scrollTop = this.log.scrollHeight;
  }

  private async clearSession(): Promise<void> {
    const id = this.sessionId;
    if (!id || this.busy || !confirm('Clear this session? Its messages are deleted for good.')) return;
    try {
      await this.api.request('DELETE', `${CHAT}sessions/${encodeURIComponent(id)}/`);
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.status === 404)) {
        say(this.error, errorMessage(failure));
        return;
      }
    }
    this.newSession();
    await this.loadSessions();
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
    const reply = new ReplyView();
    this.log.append(reply.element);
    reply.status('Sending…');
    this.log.scrollTop = this.log.scrollHeight;
    try {
      const accepted = await this.api.request<ChatAccepted>('POST', CHAT, {
        body: { message, ...(this.sessionId ? { session_id: this.sessionId } : {}), ...(this.model.value ? { model: this.model.value } : {}) },
        // The same key on a retried request gets the same turn, never a second one.
        headers: { prefer: 'respond-async', 'idempotency-key': randomKey() },
      });
      if (this.sessionId !== accepted.session_id) this.setSession(accepted.session_id, message.trim().slice(0, 80));
      this.running = { jobId: accepted.job_id, stopping: false };
      this.setBusy(true);
      if (await this.follow(accepted.job_id, reply)) await this.backfill(accepted.session_id, reply);
    } catch (failure) {
      reply.fail(errorMessage(failure));
    } finally {
      this.running = null;
      this.setBusy(false);
      this.log.scrollTop = this.log.scrollHeight;
      this.input.focus();
    }
    await this.loadSessions();
  }

  /**
   * Follows a turn through its event stream; polls the job if the stream ends early (a proxy cut
   * it). Resolves to whether the turn completed (rather than failed).
   */
  private async follow(jobId: string, reply: ReplyView): Promise<boolean> {
    try {
      for await (const event of this.api.events(`${CHAT}jobs/${encodeURIComponent(jobId)}/events`)) {
        const outcome = this.apply(event, reply);
        if (outcome !== 'running') return outcome === 'completed';
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
        return false;
      }
      if (job.status === 'completed') {
        reply.answer(job.response ?? '');
        return true;
      }
      if (job.status === 'failed') {
        if (this.running?.stopping) reply.stopped();
        else reply.fail(job.error ?? 'The turn failed.');
        return false;
      }
      reply.status(job.status === 'active' ? 'Thinking…' : 'Waiting for a worker…');
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
    session.messages.slice(lastQuestion + 1).forEach((message) => replay(message, reply));
  }

  /** Shows one event of a turn, and says whether the turn is still running. */
  private apply({ event, data }: ServerEvent, reply: ReplyView): 'running' | 'completed' | 'failed' {
    const payload = JSON.parse(data) as Record<string, unknown>;
    switch (event) {
      case 'queued':
        reply.status('Waiting for a worker…');
        return 'running';
      case 'active':
        reply.status('Thinking…');
        return 'running';
      case 'tool_call':
        reply.toolCall(payload as unknown as ToolCall);
        return 'running';
      case 'tool_result':
        reply.toolResult(payload as unknown as ToolResult);
        return 'running';
      case 'completed':
        reply.answer(String(payload.response ?? ''));
        return 'completed';
      case 'failed':
        if (this.running?.stopping) reply.stopped();
        else reply.fail(String(payload.error ?? 'The turn failed.'));
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
