import { expect } from 'chai';
import { redactJson, redactSecrets } from '../../src/kernel/security/redact-secrets.js';

describe('redactSecrets', () => {
  it('blanks every occurrence of every secret', () => {
    expect(redactSecrets('token abcd1234 then abcd1234 and key-xyz', ['abcd1234', 'key-xyz'])).to.equal('token *** then *** and ***');
  });

  it('removes a secret that contains another whole', () => {
    expect(redactSecrets('Authorization: Basic c2VjcmV0LXRva2Vu', ['c2VjcmV0', 'Basic c2VjcmV0LXRva2Vu'])).to.equal('Authorization: ***');
  });

  it('leaves the text alone for missing, empty and very short values', () => {
    expect(redactSecrets('a b abc', [undefined, '', 'a', 'abc'])).to.equal('a b abc');
  });

  it('treats a secret as text, not a pattern', () => {
    expect(redactSecrets('p4$$.w*rd and p4$$Xw*rd', ['p4$$.w*rd'])).to.equal('*** and p4$$Xw*rd');
  });
});

describe('redactJson', () => {
  it('blanks credential-named fields at any depth and known secrets in every string, leaving the input alone', () => {
    const args = {
      method: 'POST',
      body: {
        user: 'eve',
        password: 'pw-1234',
        nested: [{ client_secret: 'cs-1', 'X-API-Key': 'k-1', token: null }],
        note: 'my key is sk-known-1',
      },
      auth_secret_key: 'named-secret',
      credentials: { user: 'u', pass: 'p' },
    };
    const copy = structuredClone(args);
    expect(redactJson(args, ['sk-known-1'])).to.deep.equal({
      method: 'POST',
      body: { user: 'eve', password: '***', nested: [{ client_secret: '***', 'X-API-Key': '***', token: null }], note: 'my key is ***' },
      auth_secret_key: 'named-secret',
      credentials: '***',
    });
    expect(args).to.deep.equal(copy);
  });
});
