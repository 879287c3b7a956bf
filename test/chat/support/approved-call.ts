import { expect } from 'chai';
import type { ChatHarness } from '../chat-harness.js';
import type { JsonReply } from '../../support/http.js';
import { protocolOf, replyFor, type StubRequest } from '../../support/provider-stubs.js';
import { until } from '../../support/until.js';

const CHAT = '/plugins/ai-ops/api/chat/';

/** The tool results the model was given in a request that followed tool calls. */
export function toolResults(request: StubRequest | undefined): string[] {
  return (request?.body.messages ?? [])
    .filter((message: { role: string }) => message.role === 'tool')
    .map((message: { content: string }) => message.content);
}

/**
 * One synchronous turn as `key` in which the model calls `tool` (by default the API request tool)
 * once with `args` (approved when the turn waits for it), then answers. Answers the turn's last
 * reply, the provider request that offered the tools and the one that carried the call's result.
 */
export async function turnWithOneCall(
  sut: ChatHarness,
  key: string,
  args: Record<string, unknown>,
  tool = 'platform_dynamic_api_request',
): Promise<{ reply: JsonReply; offering?: StubRequest; answering?: StubRequest }> {
  const first = sut.stub.requests.length;
  sut.stub.respondWith(
    (request: StubRequest) => replyFor(protocolOf(request.path), '', [{ id: 'call_1', name: tool, arguments: args }]),
    (request: StubRequest) => replyFor(protocolOf(request.path), 'done'),
  );
  let reply = await sut.call('POST', CHAT, { key, body: { message: 'do it' } });
  if (reply.status === 202) {
    const job = String(reply.body.status_url);
    await until(
      async () => (await sut.call('GET', job, { key })).body.status === 'awaiting_approval',
      30_000,
      'the turn to wait for approval',
    );
    expect((await sut.call('POST', `${job}approvals/`, { key, body: { decisions: [{ id: 'call_1', approve: true }] } })).status).to.equal(
      202,
    );
    await until(
      async () => (reply = await sut.call('GET', job, { key })).body.status === 'completed',
      30_000,
      'the approved turn to complete',
    );
  }
  return { reply, offering: sut.stub.requests[first], answering: sut.stub.requests[first + 1] };
}
