/**
 * `response` with a body that fails with `exceeded()` once it passes `maxBytes`, so a huge answer
 * is never read whole; one whose Content-Length already says so fails at once.
 */
export function cappedResponse(response: Response, maxBytes: number, exceeded: () => Error): Response {
  if (!response.body) return response;
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    void response.body.cancel().catch(() => undefined);
    throw exceeded();
  }
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  let seen = 0;
  // Pulled from the answer piece by piece as it is read: lighter than a transform stream piped in between.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen <= maxBytes) return controller.enqueue(value);
      controller.error(exceeded());
      await reader.cancel().catch(() => undefined);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
