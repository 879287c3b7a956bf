import { expect } from 'chai';
import { requestCompactly } from '../../src/tool-server/compact-request.js';
import type { EndpointDocument } from '../../src/endpoint-search/endpoint-document.js';
import type { ApiRequest, ApiResult, PlatformClient } from '../../src/platform/platform.port.js';
import { compactResponse } from '../../src/tool-server/response-compaction.js';

const device = (i: number) => ({
  id: i,
  url: `https://nb.example.net/api/dcim/devices/${i}/`,
  display: `leaf-${i}`,
  name: `leaf-${i}`,
  site: { id: 3, url: 'https://nb.example.net/api/dcim/sites/3/', display: 'AMS1', name: 'AMS1', slug: 'ams1', description: '' },
  status: { value: 'active', label: 'Active' },
  serial: '',
  asset_tag: null,
  tags: [],
  comments: 'x'.repeat(1_000),
  custom_fields: { owner: null },
});
const page = (count: number, results: unknown[], next: string | null = null) => ({ count, next, previous: null, results });

describe('compactResponse', () => {
  it('drops empty values and page links, keeps nested objects as references and choices as their value', () => {
    const { data, returned } = compactResponse(page(1, [device(1)]), { budgetChars: 10_000 });
    expect(returned).to.equal(1);
    expect(data).to.deep.equal({
      count: 1,
      results: [
        {
          id: 1,
          display: 'leaf-1',
          name: 'leaf-1',
          site: { id: 3, display: 'AMS1', name: 'AMS1', slug: 'ams1' },
          status: 'active',
          comments: `${'x'.repeat(299)}…`,
        },
      ],
    });
  });

  it('keeps the results that fit and tells the offset of the rest', () => {
    const results = Array.from({ length: 50 }, (_, i) => device(i));
    const out = compactResponse(page(523, results, 'https://nb.example.net/api/dcim/devices/?limit=50&offset=150'), {
      budgetChars: 3_000,
      offset: 100,
    });
    expect(JSON.stringify(out.data).length).to.be.at.most(3_000);
    expect(out.returned).to.be.within(1, 49);
    expect(out.nextOffset).to.equal(100 + out.returned!);
    expect(out.note).to.match(new RegExp(`of 523 .*offset=${out.nextOffset}`));
  });

  it("passes on the platform's next page when everything shown fits", () => {
    const out = compactResponse(page(120, [device(1)], '/api/dcim/devices/?limit=1&offset=51'), { budgetChars: 10_000, offset: 50 });
    expect(out.nextOffset).to.equal(51);
    expect(out.note).to.match(/platform has more/);
  });

  it('selects fields or the brief form of each object', () => {
    expect(compactResponse([device(1)], { budgetChars: 10_000, fields: ['serial', 'site'] }).data).to.deep.equal([
      { id: 1, site: { id: 3, display: 'AMS1', name: 'AMS1', slug: 'ams1' } },
    ]);
    expect(compactResponse(page(1, [device(1)]), { budgetChars: 10_000, brief: true }).data).to.deep.equal({
      count: 1,
      results: [{ id: 1, display: 'leaf-1', name: 'leaf-1', status: 'active' }],
    });
  });

  it('leaves a single object that fits as it is', () => {
    expect(compactResponse(device(1), { budgetChars: 10_000 }).data).to.deep.equal(device(1));
  });
});

describe('requestCompactly', () => {
  const sent: ApiRequest[] = [];
  const client = {
    request: async (request: ApiRequest): Promise<ApiResult> => {
      sent.push(request);
      return { status: 200, data: page(1, [device(1)]), count: 1 };
    },
  } as unknown as PlatformClient;
  const declaring = (parameters: string[]) => async () => ({ parameters }) as unknown as EndpointDocument;

  it('asks the platform for brief and fields only where its description declares them', async () => {
    await requestCompactly(
      { client, operation: declaring(['brief', 'fields', 'limit']), budgetChars: 10_000 },
      { method: 'GET', path: '/api/dcim/devices/', brief: true, fields: ['name'] },
    );
    expect(sent.at(-1)!.params).to.deep.equal({ brief: true, fields: 'name' });
    const out = await requestCompactly(
      { client, operation: declaring(['limit']), budgetChars: 10_000 },
      { method: 'GET', path: '/api/dcim/devices/', params: { limit: 5 }, fields: ['name'] },
    );
    expect(sent.at(-1)!.params).to.deep.equal({ limit: 5 });
    expect(out.data).to.deep.equal({ count: 1, results: [{ id: 1, name: 'leaf-1' }] });
  });
});
