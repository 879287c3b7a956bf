import { expect } from 'chai';
import { SealedBox } from '../../src/kernel/security/sealed-box.js';

describe(SealedBox.name, () => {
  const sut = new SealedBox('a-key-of-at-least-thirty-two-characters');

  it('opens what it sealed; the sealed text does not show the value and differs each time', () => {
    const sealed = sut.seal('personal-token-1');
    expect(sealed).to.not.contain('personal-token-1');
    expect(sut.seal('personal-token-1')).to.not.equal(sealed);
    expect(sut.open(sealed)).to.equal('personal-token-1');
  });

  it('opens nothing sealed under another key, altered or malformed', () => {
    const sealed = sut.seal('personal-token-1');
    expect(new SealedBox('another-key-of-at-least-thirty-two-chars').open(sealed)).to.equal(undefined);
    const [iv, tag, data] = sealed.split('.');
    expect(sut.open([iv, tag, `${data!.slice(0, -2)}AA`].join('.'))).to.equal(undefined);
    expect(sut.open('not sealed')).to.equal(undefined);
  });
});
