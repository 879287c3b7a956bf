import { expect } from 'chai';
import { isCredentialField, redactFields, redactJson, redactSecrets } from '../../src/kernel/security/redact-secrets.js';

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

describe('isCredentialField: the one name rule', () => {
  /** Names real APIs and tools give credentials: AWS, OAuth, HTTP headers, Django, Kubernetes, NetBox, cloud SDKs, shells. */
  const CREDENTIALS = [
    'password',
    'Password',
    'PASSWORD',
    'db_password',
    'dbPassword',
    'PGPASSWORD',
    'MYSQL_ROOT_PASSWORD',
    'new_password2',
    'passwd',
    'pwd',
    'pass',
    'db_pass',
    'passphrase',
    'private_key_passphrase',
    'passcode',
    'secret',
    'secrets',
    'client_secret',
    'clientSecret',
    'ClientSecret',
    'client-secret',
    'webhook_secret',
    'SECRET',
    'shared.secret',
    'token',
    'access_token',
    'accessToken',
    'AccessToken',
    'refresh_token',
    'refreshToken',
    'id_token',
    'bearer_token',
    'auth_token',
    'X-Auth-Token',
    'x-auth-token',
    'csrf_token',
    'csrftoken',
    'AWS_SESSION_TOKEN',
    'githubToken',
    'apitoken',
    'bearer',
    'api_key',
    'apiKey',
    'ApiKey',
    'APIKey',
    'API_KEY',
    'apikey',
    'x-api-key',
    'X-API-Key',
    'secret_key',
    'SECRET_KEY',
    'secretKey',
    'aws_secret_access_key',
    'AWS_SECRET_ACCESS_KEY',
    'access_key',
    'accessKey',
    'ssh_key',
    'sshKey',
    'private_key',
    'privateKey',
    'PrivateKey',
    'signing_key',
    'encryption_key',
    'master_key',
    'license_key',
    'subscription-key',
    'Ocp-Apim-Subscription-Key',
    'credential',
    'credentials',
    'Credentials',
    'aws_credentials',
    'cookie',
    'Cookie',
    'cookies',
    'Set-Cookie',
    'set-cookie',
    'authorization',
    'Authorization',
    'Proxy-Authorization',
    'proxy_authorization',
    'sessionid',
    'session_id',
    'sessionId',
    'JSESSIONID',
    'PHPSESSID',
    'http.request.header.authorization',
    'http.request.header.cookie',
  ];
  /** Names that read like a credential's and are not: counts of tokens, record keys, public keys, cursors, this service's secret references. */
  const HARMLESS = [
    'key',
    'Key',
    'primary_key',
    'primaryKey',
    'foreign_key',
    'public_key',
    'publicKey',
    'ssh_public_key',
    'host_key',
    'sort_key',
    'partition_key',
    'idempotency_key',
    'Idempotency-Key',
    'cache_key',
    'object_key',
    'key_hint',
    'key_id',
    'api_key_id',
    'keys',
    'ssh_keys',
    'tokens',
    'max_tokens',
    'input_tokens',
    'output_tokens',
    'prompt_tokens',
    'completion_tokens',
    'total_tokens',
    'gen_ai.usage.input_tokens',
    'token_count',
    'tokenCount',
    'token_type',
    'daily_token_budget',
    'tokenizer',
    'next_token',
    'NextToken',
    'next_page_token',
    'nextPageToken',
    'page_token',
    'continuation_token',
    'auth_secret_key',
    'model_secret_key',
    'secret_name',
    'secret_ref',
    'password_changed',
    'password_expires',
    'secret_count',
    'bypass',
    'compass',
    'monkey',
    'turkey',
    'hockey',
    'author',
    'authentication_method',
    'auth_type',
    'session',
    'process_id',
    'address_id',
    'name',
    'display',
    'description',
    'status',
  ];

  for (const name of CREDENTIALS) it(`blanks ${name}`, () => expect(isCredentialField(name), name).to.equal(true));
  for (const name of HARMLESS) it(`keeps ${name}`, () => expect(isCredentialField(name), name).to.equal(false));
});

describe('redactJson with names the caller knows', () => {
  it("blanks a token's key only where asked, credential-named fields always", () => {
    const token = { id: 3, key: 'k'.repeat(40), key_hint: 'kkkk', write_enabled: true, accessToken: 'at-1' };
    expect(redactJson(token, [], new Set(['key']))).to.deep.equal({
      id: 3,
      key: '***',
      key_hint: 'kkkk',
      write_enabled: true,
      accessToken: '***',
    });
    expect(redactJson(token, [])).to.deep.equal({ ...token, accessToken: '***' });
  });
});

describe('redactFields: log lines and span attributes', () => {
  it('blanks credential-named fields in place, at any depth, keeping what is not a plain object', () => {
    const marker = Symbol('level');
    const when = new Date(0);
    const error = new Error('boom');
    const line: Record<string | symbol, unknown> = {
      message: 'request',
      Cookie: 'sid=1',
      headers: { 'X-Auth-Token': 't-1', accept: 'json' },
      usage: { input_tokens: 12 },
      when,
      error,
      [marker]: 'info',
    };
    expect(redactFields(line)).to.equal(line);
    expect(line).to.deep.include({
      message: 'request',
      Cookie: '***',
      headers: { 'X-Auth-Token': '***', accept: 'json' },
      usage: { input_tokens: 12 },
    });
    expect(line.when).to.equal(when);
    expect(line.error).to.equal(error);
    expect(line[marker]).to.equal('info');
  });
});

describe('redactJson on a JSON text that carries an own __proto__', () => {
  it('keeps it a field of the copy, its credentials blanked, never the copy’s prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"password": "pw-1", "polluted": true}, "name": "x"}') as Record<string, unknown>;
    const copy = redactJson(parsed, []);
    expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).to.equal(undefined);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).to.deep.equal({ password: '***', polluted: true });
  });
});
