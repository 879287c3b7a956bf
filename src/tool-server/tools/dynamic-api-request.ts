import { z } from 'zod';
import { requestCompactly } from '../compact-request.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { HTTP_METHODS, PlatformHttpError } from '../../platform/platform.port.js';
import type { HostDecision } from '../../chat/audit/audit-log.port.js';
import type { WritePlan } from '../../write-plans/write-plan.js';
import type { WriteCall } from '../write-confirmation.js';
import { platformTool, toolName } from './platform-tool.js';
import { success } from './tool-result.js';
import { requestOfArguments } from '../../write-plans/confirm-tokens.js';
import { redactJson } from '../../kernel/security/redact-secrets.js';

export const ApiRequestInput = {
  method: z.enum(HTTP_METHODS).describe('HTTP method'),
  path: z
    .string()
    .min(1)
    .max(2_000)
    .describe('Relative API path from the endpoint search, with ids filled in, e.g. /api/dcim/devices/ or /api/dcim/devices/5f1c.../'),
  params: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Query parameters (filters, limit, offset), e.g. {"site": "ams1", "limit": 50}'),
  body: z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .optional()
    .describe('JSON body for POST, PUT and PATCH'),
  fields: z
    .array(z.string().min(1).max(100))
    .max(50)
    .optional()
    .describe('Reads: keep only these fields of each object (id always stays), e.g. ["name", "status", "site"]'),
  brief: z.boolean().optional().describe('Reads: only what identifies each object (id, name, display, slug, address...)'),
  dry_run: z
    .boolean()
    .optional()
    .describe(
      'Sends nothing: answers the plan of the request (what it would change: objects before → after, what a delete removes, errors against the API description), worked out with reads only',
    ),
  confirm_token: z
    .string()
    .min(1)
    .max(4_000)
    .optional()
    .describe(
      "Writes: the confirm_token of this write's plan, once the user approved that plan; the write is sent only if nothing it touches changed since",
    ),
};

const PlanOutput = z
  .object({
    method: z.enum(HTTP_METHODS),
    path: z.string(),
    operation: z.string().describe("The operation as the platform's API description has it ('' when it has none)"),
    summary: z.string().describe('The operation in words: "Update device leaf-1", "Delete 3 VLANs"'),
    objects: z
      .array(z.record(z.string(), z.unknown()))
      .describe('The objects it creates, changes or deletes (display, effect, and each field before → after), up to WRITE_MAX_OBJECTS'),
    count: z.number().describe('How many objects it touches, all of them'),
    errors: z
      .array(
        z.object({
          field: z.string().optional(),
          message: z.string(),
          choices: z.array(z.union([z.string(), z.number(), z.boolean()])).optional(),
        }),
      )
      .describe('Why it cannot be made as asked (fix these before sending it)'),
    notes: z.array(z.string()),
  })
  .describe('With dry_run: what the request would do; nothing was sent');

export const ApiRequestOutput = {
  status: z.number().optional().describe('HTTP status (none for a dry run)'),
  dry_run: z.literal(true).optional().describe('Set when nothing was sent: the answer is the plan'),
  plan: PlanOutput.optional(),
  confirmation: z
    .enum(['token', 'declined', 'cancelled', 'unanswered'])
    .optional()
    .describe(
      "Why a write was not sent: token, it waits for the user's approval (confirm_token); declined or cancelled by the user when asked; unanswered, no answer came",
    ),
  confirm_token: z.string().optional().describe('Pass it with the same arguments, once the user approved the plan, to send the write'),
  confirm_expires: z.string().optional().describe('When confirm_token stops being good (ISO 8601)'),
  data: z
    .unknown()
    .optional()
    .describe(
      'The JSON answer (or text; null for an empty answer); list answers carry count and results, without empty values, nested objects as {id, display}; none for a dry run',
    ),
  count: z.number().nullable().optional().describe('Number of objects of a list answer (all pages), else null; none for a dry run'),
  returned: z.number().optional().describe('Results in data, for a list answer'),
  next_offset: z.number().optional().describe('Pass as params offset (with limit) to get the results not shown'),
  note: z.string().optional().describe('What was left out and how to get it'),
  truncated: z.boolean().optional().describe('True when the answer was cut at PLATFORM_MAX_RESPONSE_BYTES'),
};

/** A tokens endpoint (`/api/users/tokens/`, `.../tokens/provision/`): its objects carry the key under a name harmless elsewhere. */
const TOKENS_PATH = /\/tokens?(?:\/|$)/i;
const TOKEN_KEY: ReadonlySet<string> = new Set(['key']);

/**
 * A platform's answer as the caller may see it: credential-named fields blanked (see
 * isCredentialField) and, from a tokens endpoint, each token's `key`. What the tool answers goes
 * to the model and, in a chat turn, to the session, the job and its events: a key minted or read
 * there would otherwise reach them all.
 */
function withoutCredentials(path: string, data: unknown): unknown {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed path was refused before it was sent; judged as given.
  }
  return redactJson(data, [], TOKENS_PATH.test(decoded) ? TOKEN_KEY : undefined);
}

export const dynamicApiRequest = platformTool({
  name: 'dynamic_api_request',
  title: 'Call the platform API',
  description:
    'Sends one request to the platform REST API with the configured token and returns the answer. Paths are relative (from the endpoint search); writes change real data: each is planned first and sent only once the user approves the plan (asked in the host when it can ask; otherwise the answer is the plan with a confirm_token to pass on a second call after the user approves), and dry_run answers what a write would do without sending it. Query parameters the operation does not declare are refused (the platform would ignore them). List answers are compact and fit a budget: next_offset says where the rest starts; fields and brief make them smaller.',
  input: ApiRequestInput,
  output: ApiRequestOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // In a chat turn the chat plans a write, asks its user and checks the plan again before the call (see BuiltinPlatformTools).
  chat: { offered: true },
  async handle(args, deps, extra) {
    const { method, path, params, body, fields, brief, dry_run, confirm_token } = args;
    const started = Date.now();
    let confirmed: { call: WriteCall; decision: HostDecision; plan: WritePlan | null } | undefined;
    try {
      const request = requestOfArguments(args);
      if (dry_run) {
        const plan = await deps.planner.plan(request, deps.client);
        deps.logger.info('platform request planned', { method, path, errors: plan.errors.length });
        return success({ dry_run: true as const, plan });
      }
      await deps.planner.checkParameters(request);
      if (deps.writes && method !== 'GET') {
        const call: WriteCall = {
          tool: toolName(dynamicApiRequest, deps.toolPrefix),
          request,
          // The token is not kept with the call: it is how the call was confirmed, not what it asked.
          arguments: Object.fromEntries(Object.entries(args).filter(([name]) => name !== 'confirm_token')),
          ...(confirm_token !== undefined ? { confirmToken: confirm_token } : {}),
          ...(extra._meta ? { meta: extra._meta } : {}),
          ask: (form, timeout) => extra.sendRequest({ method: 'elicitation/create', params: form }, ElicitResultSchema, { timeout }),
        };
        const clearance = await deps.writes.gate.clear(call, deps.writes.host, deps.client);
        if (!clearance.cleared) return clearance.answer;
        confirmed = { call, decision: clearance.decision, plan: clearance.plan };
      }
      const result = await requestCompactly(
        { client: deps.client, operation: (m, p) => deps.index.operation(m, p, deps.indexWaitMs), budgetChars: deps.answerBudgetChars },
        { method, path, params, body, fields, brief },
      );
      deps.logger.info('platform request', { method, path, status: result.status });
      if (confirmed) {
        await deps.writes!.gate.record(confirmed.call, deps.writes!.host, confirmed.decision, 'ok', {
          plan: confirmed.plan,
          httpStatus: result.status,
          durationMs: Date.now() - started,
        });
      }
      return success({
        status: result.status,
        data: withoutCredentials(path, result.data),
        count: result.count,
        ...(result.returned !== undefined ? { returned: result.returned } : {}),
        ...(result.nextOffset !== undefined ? { next_offset: result.nextOffset } : {}),
        ...(result.note ? { note: result.note } : {}),
        ...(result.truncated ? { truncated: true } : {}),
      });
    } catch (error) {
      deps.logger.warn('platform request failed', { method, path, error: error instanceof Error ? error.message : String(error) });
      if (confirmed) {
        await deps.writes!.gate.record(confirmed.call, deps.writes!.host, confirmed.decision, 'error', {
          plan: confirmed.plan,
          ...(error instanceof PlatformHttpError ? { httpStatus: error.status } : {}),
          durationMs: Date.now() - started,
        });
      }
      // Answered as the tool's error by registerTools.
      throw error;
    }
  },
});
