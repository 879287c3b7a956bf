import { expect } from 'chai';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { isClientMetadataUrl, ToolServerClients } from '../../src/tool-server/oauth-clients.js';
import type { OAuthState, OAuthStateKind } from '../../src/tool-server/oauth-state.port.js';

const DOCUMENT_URL = 'https://host.example.test/oauth/client.json';

/** The state in a map; expiries are not this test's business. */
function memoryState(): OAuthState {
  const entries = new Map<string, unknown>();
  return {
    put: async (kind: OAuthStateKind, id: string, value: unknown) => void entries.set(`${kind}:${id}`, value),
    get: async (kind: OAuthStateKind, id: string) => entries.get(`${kind}:${id}`),
    take: async (kind: OAuthStateKind, id: string) => {
      const value = entries.get(`${kind}:${id}`);
      entries.delete(`${kind}:${id}`);
      return value;
    },
  };
}

/** A fetch that answers every request with `body` (JSON) and `status`, counting its calls. */
function serving(body: unknown, status = 200) {
  const asked: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    asked.push(input instanceof Request ? input.url : input.toString());
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, asked };
}

const document = {
  client_id: DOCUMENT_URL,
  client_name: 'Some Host',
  redirect_uris: ['http://127.0.0.1/callback'],
  token_endpoint_auth_method: 'none',
};

describe('the tool server’s OAuth clients', () => {
  it('takes an https URL with a path as a client metadata document’s client_id, nothing else', () => {
    expect(isClientMetadataUrl(DOCUMENT_URL)).to.equal(true);
    for (const other of [
      'https://host.example.test/',
      'http://host.example.test/client.json',
      '3f1c-uuid',
      'https://u:p@host.example.test/c',
    ])
      expect(isClientMetadataUrl(other), other).to.equal(false);
  });

  it('fetches a document once and keeps it; a registered client is read from the state without a fetch', async () => {
    const { fetch, asked } = serving(document);
    const clients = new ToolServerClients(memoryState(), fetch, silentLogger());
    expect(await clients.getClient(DOCUMENT_URL)).to.include({ client_id: DOCUMENT_URL, client_name: 'Some Host' });
    await clients.getClient(DOCUMENT_URL);
    expect(asked).to.deep.equal([DOCUMENT_URL]);
    const registered = await clients.registerClient({ client_id: 'a-uuid', redirect_uris: ['http://127.0.0.1/cb'] });
    expect(await clients.getClient('a-uuid')).to.deep.equal(registered);
    expect(asked).to.have.length(1);
  });

  it('refuses a document naming another client_id, asking for a secret, without redirect URIs, or not answered with 200', async () => {
    for (const [label, body, status] of [
      ['another client_id', { ...document, client_id: 'https://elsewhere.example.test/client.json' }, 200],
      ['a secret', { ...document, token_endpoint_auth_method: 'client_secret_post' }, 200],
      ['no redirect URIs', { ...document, redirect_uris: undefined }, 200],
      ['a 404', document, 404],
    ] as const) {
      const clients = new ToolServerClients(memoryState(), serving(body, status).fetch, silentLogger());
      expect(await clients.getClient(DOCUMENT_URL), label).to.equal(undefined);
    }
  });
});
