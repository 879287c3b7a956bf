import { expect } from 'chai';
import { CONNECT_PLATFORM } from '../../src/platform/platform-check.js';
import { startTestApi, type TestApi } from '../support/api.js';

const PLATFORM = '/api/plugins/ai-ops/platform/';

describe('platform check operation (the admin page’s Platform section)', () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut?.close();
  });

  it("answers a superuser which platform the agent acts on, its description's state and what to set", async () => {
    const answer = await sut.call('GET', PLATFORM);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.include({ env: 'local', is_self: true, token_set: false, read_only: false, to_connect: CONNECT_PLATFORM });
    expect(answer.body.description).to.include({ state: 'ok', error: null });
    expect(answer.body.description.operations).to.be.above(50);
  });

  it('refuses anyone but a superuser', async () => {
    const viewer = await sut.token({ permissions: ['ai_ops.view_llmmodel', 'ai_ops.view_mcpserver'] });
    expect((await sut.call('GET', PLATFORM, { key: viewer })).status).to.equal(403);
    expect((await sut.call('GET', PLATFORM, { key: null })).status).to.equal(401);
  });
});
