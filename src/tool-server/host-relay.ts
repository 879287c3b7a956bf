import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ClientCapabilitiesSchema,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from '@modelcontextprotocol/sdk/types.js';
import type { HostAnswer, HostState } from './host-state.port.js';

/*
 * Asking a host's user mid-call over the stateless HTTP transport: every POST has its own server,
 * so what the host declared at initialize is kept as a session (its id in Mcp-Session-Id, the rest
 * in HostState), a call that may ask is answered as an SSE stream the question goes out on, and the
 * host's answer, a POST of its own that may reach any instance, is handed to the waiting call
 * through HostState.
 */

/** What an initialize request declares, when the body is one: the host's name and whether it takes form elicitation. */
export function initializeOf(body: unknown): { client: string; elicitation: boolean } | undefined {
  if (!isInitializeRequest(body)) return undefined;
  // The SDK's own reading: `elicitation: {}` is form elicitation.
  const capabilities = ClientCapabilitiesSchema.safeParse(body.params.capabilities);
  return { client: body.params.clientInfo.name, elicitation: Boolean(capabilities.success && capabilities.data.elicitation?.form) };
}

/** The answers a body carries when it carries nothing else (a host answering a question), else undefined. */
export function hostAnswersOf(body: unknown): HostAnswer[] | undefined {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  const answers = messages.filter((message): message is HostAnswer => isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message));
  return answers.length > 0 && answers.length === messages.length ? answers : undefined;
}

/** A call of a tool: the only request that may ask the host's user something before it answers. */
export function isToolCall(body: unknown): boolean {
  return isJSONRPCRequest(body) && body.method === 'tools/call';
}

/**
 * Requests the server sends the host over `transport` (an elicitation) go out under an id unique
 * across instances; their answer, delivered to HostState wherever it arrived, comes back to the
 * server under the id it used. An unanswered request ends by the server's own timeout.
 */
export function relayHostRequests(transport: Transport, state: HostState, caller: string, ttlMs: number, signal: AbortSignal): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if (!isJSONRPCRequest(message)) return send(message, options);
    const id = randomUUID();
    await state.expectAnswer(id, caller, ttlMs);
    await send({ ...message, id }, options);
    state.awaitAnswer(id, ttlMs, signal).then(
      (answer) => answer && transport.onmessage?.({ ...answer, id: message.id }),
      // The transport's onerror takes an Error (the SDK's contract), whatever was thrown.
      (error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  };
}
