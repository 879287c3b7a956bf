import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy that adds `Authorization` to every request and passes everything else as it
 * came (Host and Origin included, so the server judges them as sent) and streams the answers
 * back (SSE included): the conformance suite has no way to send a token itself.
 */
export async function startSigningProxy(target: string, authorization: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: { ...req.headers, authorization }, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
