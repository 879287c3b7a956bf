import { expect } from 'chai';
import { nestsDeeperThan } from '../../src/kernel/security/json-depth.js';

const bytes = (text: string) => Buffer.from(text);

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not brackets in strings or escaped quotes', () => {
    expect(nestsDeeperThan(bytes('{"a":[{"b":[]}]}'), 4)).to.equal(false);
    expect(nestsDeeperThan(bytes('{"a":[{"b":[]}]}'), 3)).to.equal(true);
    expect(nestsDeeperThan(bytes(JSON.stringify({ s: '[[[[{{{{', t: 'say \\"[[[[\\"' })), 1)).to.equal(false);
    expect(nestsDeeperThan(bytes(JSON.stringify({ s: 'é[[[ 😀 {{{' })), 1)).to.equal(false);
  });

  it('stops at the first level past the limit', () => {
    expect(nestsDeeperThan(bytes('['.repeat(1_000_000)), 400)).to.equal(true);
    expect(nestsDeeperThan(bytes(`${'['.repeat(400)}${']'.repeat(400)}`), 400)).to.equal(false);
  });
});
