import { expect } from 'chai';
import { ChatApprovalSeal } from '../../src/chat/agent/chat-approval-seal.js';
import { AuthenticationError } from '../../src/kernel/errors.js';
import { SealedBox } from '../../src/kernel/security/sealed-box.js';
import type { Principal } from '../../src/records/auth/permissions.js';
import { mcpServerDefaults, type McpServerRecord } from '../../src/records/mcp-server.js';
import { CHAT_APPROVAL_META, ConfirmTokens, planDigest } from '../../src/write-plans/confirm-tokens.js';
import { DELETE_PLAN } from '../support/delete-plan.js';

const PLAN = DELETE_PLAN;
const ARGS = { method: 'DELETE', path: '/api/dcim/devices/1/' };
/** API keys of this service and whose they are. */
const KEYS: Record<string, string> = { 'bot-key': 'automation', 'turn-key': 'nora' };

const server = (fields: Partial<McpServerRecord>) =>
  ({ ...mcpServerDefaults(), id: 's1', name: 'platform', url: 'http://127.0.0.1:1', ...fields }) as McpServerRecord;

describe("the chat's sealed approval of a write through this service's own tool server", () => {
  const tokens = new ConfirmTokens(new SealedBox('unit-test-key-0123456789abcdef0123'));
  const seal = new ChatApprovalSeal({
    tokens,
    secrets: { resolve: async (name) => (name === 'bot-secret' ? 'bot-key' : 'not-a-key-of-this-service') },
    keys: {
      authenticate: async (key) => {
        const username = KEYS[key];
        if (!username) throw new AuthenticationError('Invalid token.');
        return { username } as Principal;
      },
    },
    ttlMs: 60_000,
  });
  const opened = (meta: Record<string, string> | undefined, caller: string) =>
    tokens.open(meta![CHAT_APPROVAL_META]!, 'chat-approval', caller);

  it("is bound to the approved plan and to the user whose API token the server's record holds", async () => {
    const meta = await seal.meta(server({ auth: 'secret', auth_secret_key: 'bot-secret' }), 'turn-key', ARGS, PLAN);
    expect(opened(meta, 'user:automation').digest).to.equal(planDigest({ method: 'DELETE', path: ARGS.path }, PLAN));
    expect(() => opened(meta, 'user:nora')).to.throw(/given to another caller/);
  });

  it("is bound to the turn's user on a server reached with each user's own OAuth account", async () => {
    const meta = await seal.meta(server({ auth: 'oauth', oauth_grant: 'authorization_code' }), 'turn-key', ARGS, PLAN);
    expect(opened(meta, 'user:nora').digest).to.equal(planDigest({ method: 'DELETE', path: ARGS.path }, PLAN));
  });

  it('is not issued when the server is reached as no user of this service, nor for arguments that name no request', async () => {
    expect(await seal.meta(server({ auth: 'none' }), 'turn-key', ARGS, PLAN)).to.equal(undefined);
    expect(await seal.meta(server({ auth: 'secret', auth_secret_key: 'other-secret' }), 'turn-key', ARGS, PLAN)).to.equal(undefined);
    expect(await seal.meta(server({ auth: 'oauth', oauth_grant: 'client_credentials' }), 'turn-key', ARGS, PLAN)).to.equal(undefined);
    expect(
      await seal.meta(server({ auth: 'secret', auth_secret_key: 'bot-secret' }), 'turn-key', { method: 'FETCH', path: '/' }, PLAN),
    ).to.equal(undefined);
  });
});
