import type { AuditedCall } from '../audit/tool-call-audit.js';
import type { ProviderReply, TextSink } from '../providers/provider.port.js';
import type { LlmModelRecord } from '../../records/llm-model.js';
import { inSpan, pastSpan, type Attributes, type Span } from '../../kernel/tracing/tracing.js';

/**
 * A model call of a turn's step in its span: which model, how many tokens and how soon the first
 * came, never what was said. `call` gets what times a streamed answer's first piece (used where the
 * model is asked, once it has its slot).
 */
export function inModelSpan(
  model: Pick<LlmModelRecord, 'name' | 'provider'>,
  step: number,
  call: (timed: (sink: TextSink) => TextSink) => Promise<ProviderReply>,
): Promise<ProviderReply> {
  const attributes = { 'gen_ai.request.model': model.name, 'gen_ai.provider.name': model.provider, 'aiops.step': step };
  return inSpan('chat model', { attributes }, async (span) => {
    const reply = await call((sink) => (span.isRecording() ? timedFirstChunk(sink, span) : sink));
    if (reply.usage)
      span.setAttributes({
        'gen_ai.usage.input_tokens': reply.usage.input_tokens,
        'gen_ai.usage.output_tokens': reply.usage.output_tokens,
      });
    span.setAttribute('aiops.tool_calls', reply.toolCalls.length);
    return reply;
  });
}

/** A tool call in its span, described as `ended` says once it has run (`approvalWaitMs`: how long its owner took to approve it). */
export function inToolSpan<T extends { ok: boolean }>(
  tool: string,
  run: () => Promise<T>,
  ended: (ok: boolean) => AuditedCall,
  approvalWaitMs?: number,
): Promise<T> {
  return inSpan('chat tool', { attributes: { 'gen_ai.tool.name': tool } }, async (span) => {
    const outcome = await run();
    if (span.isRecording()) span.setAttributes(toolCallAttributes(ended(outcome.ok), approvalWaitMs));
    return outcome;
  });
}

/** A call that did not run (declined, refused, not offered, interrupted): a span of no length in the turn's trace. */
export function pastToolSpan(call: AuditedCall, approvalWaitMs?: number): void {
  pastSpan('chat tool', Date.now(), toolCallAttributes(call, approvalWaitMs));
}

/** What a tool call's span says: the tool, its server, how it ended, its owner's decision and wait; never its arguments or result. */
function toolCallAttributes(call: AuditedCall, approvalWaitMs: number | undefined): Attributes {
  return {
    'gen_ai.tool.name': call.tool,
    'aiops.tool.server': call.server ?? '',
    'aiops.tool.outcome': call.outcome,
    ...(call.httpStatus ? { 'http.response.status_code': call.httpStatus } : {}),
    ...(call.approval ? { 'aiops.tool.approval': call.approval.decision } : {}),
    ...(approvalWaitMs !== undefined ? { 'aiops.tool.approval_wait_ms': approvalWaitMs } : {}),
  };
}

/** The sink, noting on `span` how long the model took to send the first piece of its answer (seconds, from the call). */
function timedFirstChunk(sink: TextSink, span: Span): TextSink {
  const asked = performance.now();
  let first = true;
  return {
    text(delta) {
      if (first) {
        first = false;
        span.setAttribute('gen_ai.response.time_to_first_chunk', (performance.now() - asked) / 1_000);
      }
      sink.text(delta);
    },
    restart: () => sink.restart(),
  };
}
