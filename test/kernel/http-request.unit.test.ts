import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { httpRequest } from '../../src/kernel/http/http-request.js';

describe('httpRequest', () => {
  let server: http.Server;
  let base: string;
  const seen: { method?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  let reply: (res: http.ServerResponse) => void;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        reply(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('sends the method, headers and body and reads the answer', async () => {
    reply = (res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    const response = await httpRequest({
      method: 'POST',
      url: new URL(`${base}/x`),
      headers: { 'x-test': '1' },
      body: 'héllo',
      timeoutMs: 2_000,
      maxBytes: 100,
    });
    expect(response).to.include({ status: 201, body: '{"ok":true}', truncated: false });
    expect(seen[0]).to.include({ method: 'POST', body: 'héllo' });
    expect(seen[0]!.headers).to.include({ 'x-test': '1', 'content-length': String(Buffer.byteLength('héllo')) });
  });

  it('keeps at most maxBytes of the body and says it cut it', async () => {
    reply = (res) => res.writeHead(200).end('x'.repeat(10_000));
    expect(await httpRequest({ url: new URL(base), timeoutMs: 2_000, maxBytes: 10 })).to.include({ body: 'x'.repeat(10), truncated: true });
    expect(await httpRequest({ url: new URL(base), timeoutMs: 2_000 })).to.include({ status: 200, body: '' });
  });

  it('does not follow a redirect', async () => {
    reply = (res) => res.writeHead(302, { location: `${base}/elsewhere` }).end();
    expect((await httpRequest({ url: new URL(base), headers: { authorization: 'Bearer s3cret' }, timeoutMs: 2_000 })).status).to.equal(302);
    expect(seen).to.have.length(1);
  });

  it('asks for a fresh connection to be closed', async () => {
    reply = (res) => res.writeHead(204).end();
    await httpRequest({ url: new URL(base), timeoutMs: 2_000, freshConnection: true });
    expect(seen[0]!.headers.connection).to.equal('close');
  });

  it('gives up after timeoutMs with a message that says so', async () => {
    reply = () => undefined; // never answers
    await httpRequest({ url: new URL(`${base}/slow?token=s3cret`), timeoutMs: 50 }).then(
      () => expect.fail('answered'),
      (error: Error) => expect(error.message).to.equal('no answer within 50 ms'),
    );
  });
});
