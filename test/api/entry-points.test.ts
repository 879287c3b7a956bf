import { expect } from 'chai';
import { startTestApi, type TestApi } from '../support/api.js';

describe('where a person lands', () => {
  let sut: TestApi;

  before(async () => {
    sut = await startTestApi();
  });
  after(async () => {
    await sut.close();
  });

  const landing = async (path: string) => {
    const response = await fetch(sut.baseUrl + path, { redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location') };
  };

  it('GET / leads to the chat page, without a token', async () => {
    expect(await landing('/')).to.deep.equal({ status: 302, location: '/plugins/ai-ops/chat/' });
  });

  it('GET /api/ leads a browser to the API documentation', async () => {
    const response = await fetch(`${sut.baseUrl}/api/`, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect({ status: response.status, location: response.headers.get('location') }).to.deep.equal({ status: 302, location: '/api/docs/' });
  });
});
