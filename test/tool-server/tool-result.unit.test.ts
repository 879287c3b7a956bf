import { expect } from 'chai';
import { failure } from '../../src/tool-server/tools/tool-result.js';
import { UnavailableError } from '../../src/kernel/errors.js';

const remedyOf = (error: unknown) =>
  (JSON.parse((failure(error).content[0] as { text: string }).text) as { details: { remedy?: string } }).details.remedy;

describe('tool error results for an unavailable service', () => {
  it("carry the cause's own remedy, not the platform's for every cause", () => {
    const causes = [
      new UnavailableError('the endpoint index is still being built', { remedy: 'Wait for the index and retry.' }),
      new UnavailableError('acme~tools is locked by another run', { remedy: 'Another run is working on it: wait for it to finish.' }),
      new UnavailableError('job x did not finish', { remedy: 'Start a worker for the index queue (aiops worker --queues index).' }),
    ];
    for (const cause of causes) expect(remedyOf(cause)).to.equal(cause.remedy);
    expect(remedyOf(new UnavailableError('cancelled'))).to.equal('Retry shortly.');
    expect(causes.map(remedyOf).join(' ')).to.not.include('PLATFORM_URL');
  });
});
