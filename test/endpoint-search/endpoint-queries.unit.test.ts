import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { fixture, fixturePath } from './support/stub-platform.js';

interface WrittenQuery {
  query: string;
  platform: 'nautobot' | 'netbox';
  style: 'engineer' | 'agent';
  split: 'dev' | 'heldout';
  expected: Array<{ method: string; path: string }>;
}

const DESCRIPTIONS = { nautobot: 'nautobot-openapi.json', netbox: 'netbox-openapi.json' } as const;

// The query sets are data the benchmark trusts: every accepted answer must exist in its description.
describe('endpoint query sets', () => {
  const written = readFileSync(fixturePath('endpoint-queries.written.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as WrittenQuery);
  const paths = Object.fromEntries(
    Object.entries(DESCRIPTIONS).map(([platform, file]) => [
      platform,
      fixture<{ paths: Record<string, Record<string, unknown>> }>(file).paths,
    ]),
  ) as Record<WrittenQuery['platform'], Record<string, Record<string, unknown>>>;

  it('has at least 150 requests over both descriptions, half in each style, with a held-out part', () => {
    expect(written.length).to.be.at.least(150);
    for (const platform of ['nautobot', 'netbox'] as const) {
      const mine = written.filter((query) => query.platform === platform);
      expect(mine.filter((query) => query.style === 'engineer').length).to.equal(mine.filter((query) => query.style === 'agent').length);
      expect(mine.filter((query) => query.split === 'heldout').length).to.be.at.least(15);
    }
  });

  it('has no duplicate requests', () => {
    const texts = written.map((query) => query.query.toLowerCase().trim());
    expect(new Set(texts).size).to.equal(texts.length);
  });

  it('accepts only operations its description has', () => {
    const invalid = written.flatMap((query) =>
      query.expected
        .filter(({ method, path }) => !paths[query.platform][path]?.[method.toLowerCase()])
        .map(({ method, path }) => `${query.platform}: ${query.query} -> ${method} ${path}`),
    );
    expect(invalid).to.deep.equal([]);
  });

  it('keeps the first development set valid against Nautobot', () => {
    const first = readFileSync(fixturePath('endpoint-queries.dev.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Pick<WrittenQuery, 'query' | 'expected'>);
    const invalid = first.flatMap(({ query, expected }) =>
      expected
        .filter(({ method, path }) => !paths.nautobot[path]?.[method.toLowerCase()])
        .map(({ method, path }) => `${query} -> ${method} ${path}`),
    );
    expect(invalid).to.deep.equal([]);
  });
});
