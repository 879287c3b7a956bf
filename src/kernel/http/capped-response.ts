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
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform: (chunk, controller) => {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(exceeded());
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
