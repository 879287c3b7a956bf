import { Router, type Request, type Response } from 'express';
import { UnavailableError } from '../../kernel/errors.js';
import { activeTraceId } from '../../kernel/tracing/tracing.js';
import type { RequestBody, ResponseBody } from '../../api/openapi-types.js';
import type { ApprovalsService } from '../approvals.service.js';
import type { ElicitationsService } from '../elicitations.service.js';
import type { SessionsService } from '../sessions.service.js';
import type { ChatStreamEvent, TurnEventsService } from '../turn-events.service.js';
import type { TurnSubmissionService } from '../turn-submission.service.js';

export const CHAT_BASE = '/plugins/ai-ops/api/chat/';
/** An event stream's comment line this often keeps proxies (HAProxy's timeouts: infra/haproxy) from cutting a quiet stream. */
export const HEARTBEAT_MS = 15_000;

function userOf(res: Response): string {
  // The security handler has set the principal before any operation runs.
  return res.locals.principal!.userId;
}

/** RFC 7240: `Prefer: respond-async` (possibly among other preferences). */
function prefersAsync(req: Request): boolean {
  return (req.get('prefer') ?? '').split(',').some((preference) => preference.split(';')[0]?.trim().toLowerCase() === 'respond-async');
}

/** The chat's services, as the API delegates to them. */
export interface ChatServices {
  submission: TurnSubmissionService;
  approvals: ApprovalsService;
  elicitations: ElicitationsService;
  events: TurnEventsService;
  sessions: SessionsService;
}

/**
 * The chat API: thin delegation to the chat's services (the OpenAPI validator has already checked
 * bodies, parameters and the `ai_ops.chat` permission). Without them (an app built for records
 * only) every operation answers 503.
 */
export function chatRouter(chat: ChatServices | undefined): Router {
  const router = Router();
  const services = (): ChatServices => {
    if (!chat) throw new UnavailableError('chat is not enabled in this process');
    return chat;
  };

  router.post(CHAT_BASE, async (req, res) => {
    const outcome = await services().submission.send(userOf(res), req.body as RequestBody<'chat_create'>, {
      wait: !prefersAsync(req),
      idempotencyKey: req.get('idempotency-key') || undefined,
      tokenId: res.locals.principal!.tokenId,
    });
    // The request's trace is the turn's: a user's report names it.
    const traceId = activeTraceId();
    const traced = traceId ? { trace_id: traceId } : {};
    if (outcome.status === 'completed') {
      const { status: _status, ...reply } = outcome;
      res.json({ ...reply, ...traced } satisfies ResponseBody<'chat_create', 200>);
      return;
    }
    // A path, not an absolute URL: the Host header is the client's to choose, and echoing it would
    // let a forged one put another site's address into the answer (and any cache in front).
    const statusUrl = `${CHAT_BASE}jobs/${outcome.job_id}/`;
    res
      .status(202)
      .location(statusUrl)
      .json({
        job_id: outcome.job_id,
        session_id: outcome.session_id,
        model: outcome.model,
        status_url: statusUrl,
        ...traced,
      } satisfies ResponseBody<'chat_create', 202>);
  });

  router.get(`${CHAT_BASE}jobs/`, async (req, res) => {
    const { session_id } = req.query as { session_id?: string };
    const results = await services().approvals.awaitingApproval(userOf(res), session_id);
    res.json({ count: results.length, results } satisfies ResponseBody<'chat_jobs_list', 200>);
  });

  router.get(`${CHAT_BASE}jobs/:job_id/`, async (req, res) => {
    res.json((await services().events.job(userOf(res), req.params.job_id)) satisfies ResponseBody<'chat_jobs_retrieve', 200>);
  });

  router.delete(`${CHAT_BASE}jobs/:job_id/`, async (req, res) => {
    await services().submission.stop(userOf(res), req.params.job_id);
    res.status(204).end();
  });

  router.post(`${CHAT_BASE}jobs/:job_id/approvals/`, async (req, res) => {
    const { decisions } = req.body as RequestBody<'chat_jobs_approvals_create'>;
    const decided = await services().approvals.decide(userOf(res), req.params.job_id, decisions);
    const statusUrl = `${CHAT_BASE}jobs/${decided.job_id}/`;
    res
      .status(202)
      .location(statusUrl)
      .json({ ...decided, status_url: statusUrl } satisfies ResponseBody<'chat_jobs_approvals_create', 202>);
  });

  router.post(`${CHAT_BASE}jobs/:job_id/elicitations/:id/`, async (req, res) => {
    const answered = await services().elicitations.answer(
      userOf(res),
      req.params.job_id,
      req.params.id,
      req.body as RequestBody<'chat_jobs_elicitations_create'>,
    );
    res.json(answered satisfies ResponseBody<'chat_jobs_elicitations_create', 200>);
  });

  router.get(`${CHAT_BASE}jobs/:job_id/events`, async (req, res) => {
    const pending: ChatStreamEvent[] = [];
    let open = false;
    const write = (event: ChatStreamEvent) => {
      res.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
    };
    // Ownership is checked before any byte is sent, so another user's job is a plain 404.
    const stream = await services().events.stream(userOf(res), req.params.job_id, (event) => (open ? write(event) : pending.push(event)));
    res.status(200).set({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    open = true;
    pending.forEach(write);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    res.on('close', () => stream.close());
    await stream.done;
    clearInterval(heartbeat);
    res.end();
  });

  router.get(`${CHAT_BASE}sessions/`, async (req, res) => {
    const { limit, offset } = req.query as unknown as { limit: number; offset: number };
    const page = await services().sessions.list(userOf(res), offset, limit);
    const link = (at: number) => `${CHAT_BASE}sessions/?limit=${limit}${at > 0 ? `&offset=${at}` : ''}`;
    res.json({
      count: page.count,
      next: offset + limit < page.count ? link(offset + limit) : null,
      previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
      results: page.results,
    } satisfies ResponseBody<'chat_sessions_list', 200>);
  });

  router.get(`${CHAT_BASE}models/`, async (_req, res) => {
    const results = await services().sessions.models();
    res.json({ count: results.length, next: null, previous: null, results } satisfies ResponseBody<'chat_models_list', 200>);
  });

  router.patch(`${CHAT_BASE}sessions/:session_id/`, async (req, res) => {
    res.json(
      (await services().sessions.rename(
        userOf(res),
        req.params.session_id,
        (req.body as RequestBody<'chat_sessions_partial_update'>).title,
      )) satisfies ResponseBody<'chat_sessions_partial_update', 200>,
    );
  });

  router.get(`${CHAT_BASE}sessions/:session_id/`, async (req, res) => {
    res.json((await services().sessions.get(userOf(res), req.params.session_id)) satisfies ResponseBody<'chat_sessions_retrieve', 200>);
  });

  router.delete(`${CHAT_BASE}sessions/:session_id/`, async (req, res) => {
    await services().sessions.clear(userOf(res), req.params.session_id);
    res.status(204).end();
  });

  return router;
}
