import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { recordingServer } from '../support/http.js';
import { nodeFetch } from '../../src/kernel/http/node-fetch.js';

describe('nodeFetch', () => {
  let reply: (res: http.ServerResponse) => void;
  const server = recordingServer((res) => reply(res));
  const { seen } = server;
  let base: string;
  const fetch = nodeFetch();
  before(() => {
    base = server.base();
  });

  it('sends the method, headers and body and answers a Response, on one kept-alive connection', async () => {
    reply = (res) => res.writeHead(201, { 'content-type': 'application/json', 'x-answer': 'yes' }).end('{"ok":true}');
    const response = await fetch(`${base}/x`, {
      method: 'POST',
      headers: { 'x-test': '1', 'content-type': 'application/json' },
      body: '{"q":"héllo"}',
    });
    expect(response.status).to.equal(201);
    expect(response.ok).to.equal(true);
    expect(response.headers.get('x-answer')).to.equal('yes');
    expect(await response.json()).to.deep.equal({ ok: true });
    expect(seen[0]).to.include({ method: 'POST', body: '{"q":"héllo"}' });
    expect(seen[0]!.headers).to.include({ 'x-test': '1', 'content-length': String(Buffer.byteLength('{"q":"héllo"}')) });
    await (await fetch(new URL(`${base}/again`))).text();
    expect(seen[1]!.socket, 'the second request reuses the connection').to.equal(seen[0]!.socket);
  });

  it('waits for an answer longer than a kept-alive socket may stay idle, and closes a socket idle that long', async () => {
    const briefly = nodeFetch(undefined, 50);
    reply = (res) => setTimeout(() => res.writeHead(200).end('late'), 200);
    expect(await (await briefly(base)).text()).to.equal('late');
    reply = (res) => res.writeHead(200).end('again');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await (await briefly(base)).text()).to.equal('again');
    expect(seen[1]!.socket, 'the idle socket was closed, a new one made').to.not.equal(seen[0]!.socket);
  });

  it('sends a form as fetch would, content type included', async () => {
    reply = (res) => res.writeHead(204).end();
    const response = await fetch(base, { method: 'POST', body: new URLSearchParams({ a: '1', b: 'two' }) });
    expect(response.status).to.equal(204);
    expect(response.body).to.equal(null);
    expect(seen[0]!.body).to.equal('a=1&b=two');
    expect(seen[0]!.headers['content-type']).to.match(/^application\/x-www-form-urlencoded/);
  });

  it('answers a redirect without following it', async () => {
    reply = (res) => res.writeHead(302, { location: `${base}/elsewhere` }).end();
    const response = await fetch(base, { headers: { authorization: 'Bearer s3cret' } });
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.equal(`${base}/elsewhere`);
    expect(seen).to.have.length(1);
  });

  it('decompresses a compressed answer', async () => {
    reply = (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('plain text'));
    expect(await (await fetch(base)).text()).to.equal('plain text');
  });

  it('streams the body as it arrives', async () => {
    let finish: () => void = () => undefined;
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      finish = () => res.end('data: last\n\n');
    };
    const reader = (await fetch(base)).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).to.equal('data: first\n\n');
    finish();
    expect(new TextDecoder().decode((await reader.read()).value)).to.equal('data: last\n\n');
    expect((await reader.read()).done).to.equal(true);
  });

  it('rejects with the signal’s reason when aborted before the answer, and while its body is read', async () => {
    reply = () => undefined; // never answers
    const early = new AbortController();
    const pending = fetch(base, { signal: early.signal });
    early.abort(new Error('gave up'));
    await pending.then(
      () => expect.fail('answered'),
      (error: Error) => expect(error.message).to.equal('gave up'),
    );
    reply = (res) => res.writeHead(200).write('part');
    const late = new AbortController();
    const response = await fetch(base, { signal: late.signal });
    late.abort(new Error('stopped reading'));
    await response.text().then(
      () => expect.fail('read whole'),
      (error: Error) => expect(error.message).to.equal('stopped reading'),
    );
    const aborted = AbortSignal.abort(new Error('before it started'));
    await fetch(base, { signal: aborted }).then(
      () => expect.fail('answered'),
      (error: Error) => expect(error.message).to.equal('before it started'),
    );
  });

  it('fails as fetch does when it cannot connect, and where the lookup refuses the address', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await fetch(`http://127.0.0.1:${port}/`).then(
      () => expect.fail('connected'),
      (error: Error) => {
        expect(error).to.be.instanceOf(TypeError);
        expect((error.cause as NodeJS.ErrnoException).code).to.equal('ECONNREFUSED');
      },
    );
    const refusing = nodeFetch((_host, _options, callback) =>
      callback(Object.assign(new Error('refused by policy'), { code: 'EREFUSED' }), ''),
    );
    await refusing(`http://localhost:${new URL(base).port}/`).then(
      () => expect.fail('connected'),
      (error: Error) => expect((error.cause as Error).message).to.equal('refused by policy'),
    );
    expect(seen).to.have.length(0);
  });
});
