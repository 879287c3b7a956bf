import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { expect } from 'chai';
import winston from 'winston';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { inSpan, pastSpan } from '../../src/kernel/tracing/tracing.js';

/** Credentials under the names the audit found shown in clear, with a count of tokens that must stay readable. */
const FIELDS = {
  accessToken: 'at-0001',
  clientSecret: 'cs-0002',
  secret_key: 'sk-0003',
  aws_secret_access_key: 'aw-0004',
  ssh_key: 'ss-0005',
  Cookie: 'co-0006',
  'http.request.header.authorization': 'Token tk-0007',
};
const VALUES = Object.values(FIELDS);

describe('credentials in log lines and spans: the one name rule', () => {
  it('a log line shows each credential-named field as ***, at the top and deeper, and keeps the rest', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info' });
    logger.clear().add(
      new winston.transports.Stream({
        stream: new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(chunk.toString());
            done();
          },
        }),
      }),
    );
    logger.info('platform request', { ...FIELDS, request: { headers: FIELDS }, input_tokens: 12 });
    const [line] = lines.map((text) => JSON.parse(text) as Record<string, unknown>);
    for (const value of VALUES) expect(lines.join('')).to.not.contain(value);
    expect(line).to.deep.include({ message: 'platform request', level: 'info', accessToken: '***', Cookie: '***', input_tokens: 12 });
    expect((line!.request as { headers: Record<string, string> }).headers.clientSecret).to.equal('***');
  });

  describe('spans', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    before(() => {
      trace.setGlobalTracerProvider(provider);
    });
    after(() => {
      trace.disable();
    });

    it("a span's attributes show each credential-named one as ***, and the counts of tokens as they are", async () => {
      const attributes = { ...FIELDS, 'gen_ai.usage.input_tokens': 12 };
      await inSpan('work', { attributes }, async () => undefined);
      pastSpan('waited', 0, attributes);
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      expect(spans.map((span) => span.name)).to.deep.equal(['work', 'waited']);
      for (const span of spans) {
        for (const value of VALUES) expect(JSON.stringify(span.attributes)).to.not.contain(value);
        expect(span.attributes).to.deep.include({
          accessToken: '***',
          'http.request.header.authorization': '***',
          'gen_ai.usage.input_tokens': 12,
        });
      }
      expect(attributes.accessToken, "the caller's attributes are left alone").to.equal('at-0001');
    });
  });
});
