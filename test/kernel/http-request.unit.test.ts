import http from 'node:http';
import { expect } from 'chai';
import { recordingServer } from '../support/http.js';
import { httpRequest } from '../../src/kernel/http/http-request.js';

describe('httpRequest', () => {
  let reply: (res: http.ServerResponse) => void;
  const server = recordingServer((res) => reply(res));
  const { seen } = server;
  let base: string;
  before(() => {
    base = server.base();
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
