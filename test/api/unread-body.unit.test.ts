import { expect } from 'chai';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discardUnreadBody } from '../../src/api/middleware/unread-body.js';
import { sendRaw } from '../support/http.js';

/** Larger than a loopback socket's buffers on either side. */
const ANSWER = 'a'.repeat(1_000_000);
const BODY = 'b'.repeat(1_000_000);

describe('discardUnreadBody', () => {
  let server: Server;
  let baseUrl: string;

  before(async () => {
    const app = express();
    app.use(discardUnreadBody('2mb'));
    app.get('/large', (_req, res) => res.type('text/plain').send(ANSWER));
    app.post('/echo-length', express.text({ limit: '2mb' }), (req, res) => res.json({ length: (req.body as string).length }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers a GET that came with a large body with a large answer (left unread, both sides wait on each other for good)', async () => {
    for (const framing of ['chunked', 'length'] as const) {
      const length: Record<string, string> = framing === 'length' ? { 'content-length': String(BODY.length) } : {};
      const reply = await sendRaw(`${baseUrl}/large`, 'GET', { headers: { 'content-type': 'text/plain', ...length }, body: BODY, framing });
      expect(reply.status, framing).to.equal(200);
      expect(reply.text.length, framing).to.equal(ANSWER.length);
    }
  });

  it('leaves the body of a method that takes one to its parser', async () => {
    const reply = await sendRaw(`${baseUrl}/echo-length`, 'POST', { headers: { 'content-type': 'text/plain' }, body: BODY });
    expect(JSON.parse(reply.text)).to.deep.equal({ length: BODY.length });
  });
});
