import { expect } from 'chai';
import http from 'node:http';
import { PassThrough } from 'node:stream';
import winston from 'winston';
import { createApp } from '../../src/roles/api-app.js';
import { loadOpenApiDocument } from '../../src/api/openapi.js';
import { createMetrics } from '../../src/kernel/metrics/metrics.js';
import { startTestApi, type TestApi } from '../support/api.js';

describe('request log', () => {
  let sut: TestApi;
  let server: http.Server;
  let baseUrl: string;
  const lines: string[] = [];

  before(async () => {
    sut = await startTestApi();
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const logger = winston.createLogger({
      level: 'info',
      format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
      transports: [new winston.transports.Stream({ stream: sink })],
    });
    const app = createApp({
      records: sut.records,
      readiness: async () => ({ ready: true, redis: 'ok' as const }),
      document: loadOpenApiDocument(),
      logger,
      version: 'test',
      metrics: createMetrics(),
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await sut.close();
  });

  it('writes one JSON line per request with id, method, path, status and duration, never the token', async () => {
    const response = await fetch(`${baseUrl}/api/extras/secrets/?q=x`, {
      method: 'POST',
      headers: { authorization: `Token ${sut.adminKey}`, 'content-type': 'application/json', 'x-request-id': 'log-test-1' },
      body: JSON.stringify({ name: 'logged', provider: 'environment-variable', parameters: { variable: 'SUPER_SECRET_VAR' } }),
    });
    expect(response.status).to.equal(400); // q is not a parameter of POST
    await fetch(`${baseUrl}/status`);
    await new Promise((resolve) => setImmediate(resolve));
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const entry = entries.find((e) => e.request_id === 'log-test-1');
    expect(entry).to.include({ message: 'request', method: 'POST', path: '/api/extras/secrets/', status: 400, user: 'admin' });
    expect(entry?.duration_ms).to.be.a('number');
    expect(entries.filter((e) => e.request_id === 'log-test-1')).to.have.length(1);
    const all = lines.join('\n');
    expect(all).to.not.include(sut.adminKey);
    expect(all.toLowerCase()).to.not.include('authorization');
  });

  it('logs an unexpected error with its request id and answers a generic 500 without details', async () => {
    const failing = {
      ...sut.records,
      llmModels: {
        ...sut.records.llmModels,
        list: async () => {
          throw new Error('boom at internals');
        },
      },
    };
    const app = createApp({
      records: failing as unknown as typeof sut.records,
      readiness: async () => ({ ready: true, redis: 'ok' as const }),
      document: loadOpenApiDocument(),
      logger: winston.createLogger({ transports: [new winston.transports.Stream({ stream: new PassThrough() })] }),
      version: 'test',
      metrics: createMetrics(),
    });
    const broken = http.createServer(app);
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (broken.address() as { port: number }).port;
      const response = await fetch(`http://127.0.0.1:${port}/api/plugins/ai-ops/llm-models/`, {
        headers: { authorization: `Token ${sut.adminKey}`, 'x-request-id': 'err-1' },
      });
      expect(response.status).to.equal(500);
      const body = (await response.json()) as { detail: string };
      expect(body.detail).to.equal('Internal server error (request err-1).');
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  });
});
