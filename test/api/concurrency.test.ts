import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';

describe('concurrent writes', () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut.close();
  });

  it('20 concurrent "make default" requests leave exactly one default', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await sut.call('POST', MODELS, { body: { name: `race-default-${i}` } })).body.id);
    const responses = await Promise.all(ids.map((id) => sut.call('PATCH', `${MODELS}${id}/`, { body: { is_default: true } })));
    expect(responses.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
    const defaults = await sut.call('GET', `${MODELS}?is_default=true`);
    expect(defaults.body.count).to.equal(1);
    const all = (await sut.call('GET', `${MODELS}?limit=1000`)).body.results as { is_default: boolean }[];
    expect(all.filter((model) => model.is_default)).to.have.length(1);
  });

  it('20 concurrent creates with default flags leave exactly one default', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => sut.call('POST', MODELS, { body: { name: `race-create-default-${i}`, is_default: true } })),
    );
    expect((await sut.call('GET', `${MODELS}?is_default=true`)).body.count).to.equal(1);
  });

  it('20 concurrent creates of one name leave exactly one record', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => sut.call('POST', MODELS, { body: { name: 'race-same-name' } })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).to.have.length(1);
    expect(statuses.filter((s) => s === 400)).to.have.length(19);
    expect((await sut.call('GET', `${MODELS}?name=race-same-name`)).body.count).to.equal(1);
  });

  it('concurrent PATCHes of different fields all land (no lost update)', async () => {
    const id = (await sut.call('POST', MODELS, { body: { name: 'race-patch' } })).body.id;
    const patches = [
      { description: 'described' },
      { temperature: 1.25 },
      { api_version: '2024-10-21' },
      { system_prompt: 'Be brief.' },
      { model_config: { max_tokens: 64 } },
      { hosted_endpoint: 'http://127.0.0.1:11434' },
    ];
    await Promise.all(patches.map((body) => sut.call('PATCH', `${MODELS}${id}/`, { body })));
    const final = (await sut.call('GET', `${MODELS}${id}/`)).body;
    for (const patch of patches) expect(final).to.deep.include(patch);
  });

  it('concurrent renames to one name: one wins, the others are told why', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await sut.call('POST', MODELS, { body: { name: `rename-src-${i}` } })).body.id);
    const responses = await Promise.all(ids.map((id) => sut.call('PATCH', `${MODELS}${id}/`, { body: { name: 'rename-target' } })));
    expect(responses.filter((r) => r.status === 200)).to.have.length(1);
    expect(responses.filter((r) => r.status === 400 && r.body.name)).to.have.length(9);
    expect((await sut.call('GET', `${MODELS}?q=rename-`)).body.count).to.equal(10);
  });
});
