import { createParser } from 'eventsource-parser';
import { UpstreamError } from '../../kernel/errors.js';

/**
 * Hands each JSON payload of a server-sent event stream (a streamed chat completion's chunks) to
 * `each` as it arrives, up to `[DONE]`; the body is read to its end, so the connection can serve
 * again. A payload that is not JSON, or that reports an error instead of a chunk, fails the read.
 */
export async function eachServerSentJson<T>(response: Response, each: (payload: T) => void): Promise<void> {
  if (!response.body) return;
  let done = false;
  const parser = createParser({
    onEvent: ({ data }) => {
      if (done || data.startsWith('[DONE]')) {
        done = true;
        return;
      }
      const payload = JSON.parse(data) as unknown;
      if (payload && typeof payload === 'object' && (payload as { error?: unknown }).error)
        throw new UpstreamError('the stream reports an error instead of a chunk');
      each(payload as T);
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(bytes, { stream: true }));
}
