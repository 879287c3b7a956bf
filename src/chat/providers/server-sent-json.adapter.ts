import { createParser } from 'eventsource-parser';

/**
 * The JSON payloads of a server-sent event stream (a streamed chat completion's chunks) as they
 * arrive, up to `[DONE]`; the body is read to its end, so the connection can serve again. A payload
 * that is not JSON, or that reports an error instead of a chunk, fails the stream.
 */
export async function* serverSentJson<T>(response: Response): AsyncGenerator<T> {
  if (!response.body) return;
  const payloads: string[] = [];
  const parser = createParser({ onEvent: (event) => void payloads.push(event.data) });
  const decoder = new TextDecoder();
  let done = false;
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    for (const data of payloads.splice(0)) {
      if (done || data.startsWith('[DONE]')) {
        done = true;
        continue;
      }
      const chunk = JSON.parse(data) as unknown;
      if (chunk && typeof chunk === 'object' && (chunk as { error?: unknown }).error)
        throw new Error('the stream reports an error instead of a chunk');
      yield chunk as T;
    }
  }
}
