import { expect } from 'chai';
import { oldNodeWarning } from '../../src/cli/process.js';

describe('the Node.js a server role runs on', () => {
  it('warns on a Node.js past its end of life, and says nothing on 22 or newer', () => {
    expect(oldNodeWarning('20.20.2')).to.equal(
      'Node.js 20.20.2 is past its end of life; this service is supported on Node.js 22 or newer and runs on 24 in its image and CI (see the README for how to get it)',
    );
    expect(oldNodeWarning('22.0.0')).to.equal(undefined);
    expect(oldNodeWarning('24.21.0')).to.equal(undefined);
  });
});
