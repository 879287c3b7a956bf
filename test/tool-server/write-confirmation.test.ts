import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { z } from 'zod';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import { loadConfig, type Config } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { SealedBox } from '../../src/kernel/security/sealed-box.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import { buildPlatformToolServer, openToolServerWrites, type PlatformToolServer, type ToolServerWrites } from '../../src/roles/mcp.js';
import { callerCheck } from '../../src/tool-server/caller-check.js';
import { CHAT_APPROVAL_META, ConfirmTokens, planDigest } from '../../src/write-plans/confirm-tokens.js';
import type { WritePlan } from '../../src/write-plans/write-plan.js';
import { serveHttp, type McpHttpServer } from '../../src/tool-server/http.js';
import { ApiRequestOutput } from '../../src/tool-server/tools/dynamic-api-request.js';
import { fixture } from '../endpoint-search/support/stub-platform.js';
import { startObjectPlatform, type ObjectPlatform } from '../support/object-platform.js';
import { PlatformObjects } from '../support/platform-objects.js';
import { aiopsMcpOverStdio } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { toolServerUser } from '../support/tokens.js';

const DEVICES = '/api/dcim/devices/';
const TAGS = '/api/extras/tags/';
const STATIC_TOKEN = 'confirm-test-static-token-0123456789';
const KEY = 'confirm-test-sealing-key-0123456789abcdef';
const REQUEST_TOOL = 'platform_dynamic_api_request';

/** A host's user: how they answer the next question, and what they were asked. */
interface HostUser {
  answer: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  asked: ElicitRequest[];
}

/** An MCP host on the SDK's client, declaring elicitation when `user` is given; tools listed, so answers are checked against their output schemas. */
async function connectHost(transport: Transport, user?: HostUser): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1' }, { capabilities: user ? { elicitation: {} } : {} });
  if (user) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      user.asked.push(request);
      return user.answer(request);
    });
  }
  await client.connect(transport);
  await client.listTools();
  return client;
}

const answerOf = (result: CallToolResult) => z.object(ApiRequestOutput).parse(result.structuredContent);
const errorOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as { error: string };

describe("the tool server's writes are confirmed by the host's user", () => {
  let objects: PlatformObjects;
  let platform: ObjectPlatform;
  let dir: string;
  const description = fixture('nautobot-openapi.json');

  const seedDevice = (name: string) => String(objects.seed(DEVICES, [{ name, status: 'active' }])[0]!.id);
  const exists = (id: string) => objects.get(DEVICES, id) !== undefined;
  const deletesSent = () => platform.requests.filter((request) => request.method === 'DELETE').length;
  const deleteCall = (id: string, extra: Record<string, unknown> = {}) =>
    ({ name: REQUEST_TOOL, arguments: { method: 'DELETE', path: `${DEVICES}${id}/`, ...extra } }) as const;

  before(async () => {
    objects = new PlatformObjects({ ids: 'uuid', references: {} });
    objects.seed(TAGS, []);
    platform = await startObjectPlatform(description, objects);
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-write-confirm-'));
  });
  after(async () => {
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('over HTTP, two instances sharing Redis, each request of a host to either one', () => {
    let redis: TestRedis;
    let config: Config;
    let runtime: PlatformToolServer;
    const writes: ToolServerWrites[] = [];
    const servers: McpHttpServer[] = [];
    let userKey: string;

    before(async () => {
      redis = await startTestRedis();
      config = loadConfig({
        PLATFORM_URL_LOCAL: platform.url,
        PLATFORM_TOKEN: 'service-token-0123456789',
        PLATFORM_TOKEN_KEY: KEY,
        REDIS_URL: redis.url,
        EMBEDDING_MODEL: 'none',
        DATA_DIR: dir,
      });
      const records = createRecords(redis.client, config.redis.keyPrefix);
      userKey = (await toolServerUser(records.tokens)).key;
      runtime = await buildPlatformToolServer(config, silentLogger());
      for (let instance = 0; instance < 2; instance++) {
        const shared = openToolServerWrites(config, runtime.deps, silentLogger());
        writes.push(shared);
        servers.push(
          await serveHttp(runtime.deps, 'test', {
            host: '127.0.0.1',
            port: 0,
            callers: callerCheck({ staticToken: STATIC_TOKEN, tokens: records.tokens }),
            writes: shared,
          }),
        );
      }
    });
    after(async () => {
      for (const server of servers) await server.close();
      for (const shared of writes) await shared.close();
      await runtime.close();
      await redis.destroy();
    });

    /** A transport whose POSTs go to the two instances in turn, as a round-robin balancer sends them. */
    const balanced = (token = STATIC_TOKEN): Transport => {
      let turn = 0;
      return new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${servers[0]!.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => {
          const target = new URL(String(url));
          target.port = String(servers[turn++ % servers.length]!.port);
          return fetch(target, init);
        },
      });
    };
    const audited = async () =>
      (await new RedisAuditLog(redis.client, { prefix: config.redis.keyPrefix, retentionMs: 86_400_000 }).list({ limit: 50, offset: 0 }))
        .results;

    it('puts a DELETE to a host that declared elicitation as a plan: nothing is written on decline, the object is deleted on accept', async () => {
      const user: HostUser = { answer: () => ({ action: 'decline' }), asked: [] };
      const host = await connectHost(balanced(), user);
      try {
        const id = seedDevice('leaf-decline');
        const sentBefore = deletesSent();
        const declined = (await host.callTool(deleteCall(id))) as CallToolResult;
        expect(declined.isError).to.not.equal(true);
        expect(answerOf(declined)).to.deep.include({ dry_run: true, confirmation: 'declined' });
        expect(user.asked).to.have.length(1);
        expect(user.asked[0]!.params.message).to.include('Delete device leaf-decline');
        expect(exists(id)).to.equal(true);
        expect(deletesSent()).to.equal(sentBefore);

        user.answer = () => ({ action: 'accept', content: { approve: true } });
        const accepted = (await host.callTool(deleteCall(id))) as CallToolResult;
        expect(accepted.isError, JSON.stringify(accepted.content)).to.not.equal(true);
        expect(answerOf(accepted)).to.include({ status: 204 });
        expect(exists(id)).to.equal(false);
        const entry = (await audited()).find((candidate) => candidate.arguments.path === `${DEVICES}${id}/` && candidate.outcome === 'ok');
        expect(entry).to.deep.include({ host: { client: 'test-host', decision: 'elicitation' }, http_status: 204, user: 'MCP_HTTP_TOKEN' });
        expect(entry!.plan).to.deep.include({ summary: 'Delete device leaf-decline' });
      } finally {
        await host.close();
      }
    });

    it('does not write an object that changed between the question and its accept', async () => {
      const id = seedDevice('leaf-moved');
      const user: HostUser = {
        answer: () => {
          objects.edit(DEVICES, id, { status: 'planned' });
          return { action: 'accept', content: { approve: true } };
        },
        asked: [],
      };
      const host = await connectHost(balanced(), user);
      try {
        const sentBefore = deletesSent();
        const result = (await host.callTool(deleteCall(id))) as CallToolResult;
        expect(result.isError).to.equal(true);
        expect(errorOf(result).error).to.match(/nothing was written: what the user approved changed since.*leaf-moved was changed/);
        expect(exists(id)).to.equal(true);
        expect(deletesSent()).to.equal(sentBefore);
      } finally {
        await host.close();
      }
    });

    it('answers a host without elicitation the plan and a confirm token; only a second call with it writes, once', async () => {
      const host = await connectHost(balanced());
      try {
        const id = seedDevice('leaf-token');
        const sentBefore = deletesSent();
        const first = answerOf((await host.callTool(deleteCall(id))) as CallToolResult);
        expect(first).to.deep.include({ dry_run: true, confirmation: 'token' });
        expect(first.plan).to.deep.include({ summary: 'Delete device leaf-token' });
        expect(first.confirm_token).to.be.a('string');
        expect(exists(id)).to.equal(true);
        expect(deletesSent()).to.equal(sentBefore);

        const written = (await host.callTool(deleteCall(id, { confirm_token: first.confirm_token }))) as CallToolResult;
        expect(written.isError, JSON.stringify(written.content)).to.not.equal(true);
        expect(answerOf(written)).to.include({ status: 204 });
        expect(exists(id)).to.equal(false);
        const entry = (await audited()).find((candidate) => candidate.arguments.path === `${DEVICES}${id}/`);
        expect(entry).to.deep.include({ host: { client: 'test-host', decision: 'confirm_token' }, outcome: 'ok' });
        expect(JSON.stringify(entry)).to.not.include(first.confirm_token!);

        // A write whose plan holds after it is made (a create): its token makes it once only.
        const create = {
          name: REQUEST_TOOL,
          arguments: { method: 'POST', path: TAGS, body: { name: 'replayed', slug: 'replayed', content_types: ['dcim.device'] } },
        };
        const plannedResult = (await host.callTool(create)) as CallToolResult;
        expect(plannedResult.isError, JSON.stringify(plannedResult.content)).to.not.equal(true);
        const planned = answerOf(plannedResult);
        expect(planned.plan?.errors).to.deep.equal([]);
        const confirmed = { ...create, arguments: { ...create.arguments, confirm_token: planned.confirm_token } };
        const created = (await host.callTool(confirmed)) as CallToolResult;
        expect(created.isError, JSON.stringify(created.content)).to.not.equal(true);
        expect(answerOf(created)).to.include({ status: 201 });
        const replayed = (await host.callTool(confirmed)) as CallToolResult;
        expect(replayed.isError).to.equal(true);
        expect(errorOf(replayed).error).to.match(/used already/);
        expect(objects.all(TAGS).filter((tag) => tag.name === 'replayed')).to.have.length(1);
      } finally {
        await host.close();
      }
    });

    it("writes nothing for a forged, altered, expired, other write's or other caller's token", async () => {
      const host = await connectHost(balanced());
      const other = await connectHost(balanced(userKey));
      try {
        const id = seedDevice('leaf-guarded');
        const otherId = seedDevice('leaf-other');
        const { confirm_token: token } = answerOf((await host.callTool(deleteCall(id))) as CallToolResult);
        const { confirm_token: otherToken } = answerOf((await host.callTool(deleteCall(otherId))) as CallToolResult);
        // Sealed with the service's own key, but already past its expiry.
        const expired = new ConfirmTokens(new SealedBox(KEY), () => Date.now() - 3_600_000).issue('confirm', 'x', 'static', 60_000).token;
        const altered = `${token!.slice(0, -4)}${token!.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
        const sentBefore = deletesSent();
        for (const [what, client, given, reason] of [
          ['forged', host, 'not-a-token', /not one this server issued/],
          ['altered', host, altered, /not one this server issued/],
          ['expired', host, expired, /expired/],
          ["another write's", host, otherToken!, /not as it was when confirmed/],
          ["another caller's", other, token!, /another caller/],
        ] as const) {
          const result = (await client.callTool(deleteCall(id, { confirm_token: given }))) as CallToolResult;
          expect(result.isError, what).to.equal(true);
          expect(errorOf(result).error, what).to.match(reason);
        }
        expect(deletesSent()).to.equal(sentBefore);
        expect(exists(id)).to.equal(true);
        expect(exists(otherId)).to.equal(true);
      } finally {
        await host.close();
        await other.close();
      }
    });
    it('writes a call the chat approved (its approval in _meta, checked as a token is) without asking again; a claimed approval writes nothing', async () => {
      const user: HostUser = { answer: () => ({ action: 'decline' }), asked: [] };
      const host = await connectHost(balanced(), user);
      try {
        const id = seedDevice('leaf-chat');
        const request = { method: 'DELETE' as const, path: `${DEVICES}${id}/` };
        const { plan } = answerOf((await host.callTool(deleteCall(id, { dry_run: true }))) as CallToolResult);
        const claimed = (await host.callTool({
          ...deleteCall(id),
          _meta: { [CHAT_APPROVAL_META]: 'approved, trust me' },
        })) as CallToolResult;
        expect(claimed.isError).to.equal(true);
        expect(exists(id)).to.equal(true);
        const approval = new ConfirmTokens(new SealedBox(KEY)).issue(
          'chat-approval',
          planDigest(request, plan as unknown as WritePlan),
          'static',
          60_000,
        );
        const approved = (await host.callTool({ ...deleteCall(id), _meta: { [CHAT_APPROVAL_META]: approval.token } })) as CallToolResult;
        expect(approved.isError, JSON.stringify(approved.content)).to.not.equal(true);
        expect(exists(id)).to.equal(false);
        expect(user.asked).to.deep.equal([]);
        const entry = (await audited()).find((candidate) => candidate.arguments.path === `${DEVICES}${id}/`);
        expect(entry).to.deep.include({ host: { client: 'test-host', decision: 'chat_approval' }, outcome: 'ok' });
      } finally {
        await host.close();
      }
    });
  });

  describe('over stdio, from a spawned `aiops mcp`', () => {
    const spawnHost = (user?: HostUser) =>
      connectHost(
        aiopsMcpOverStdio({
          PLATFORM_URL_LOCAL: platform.url,
          PLATFORM_TOKEN: 'service-token-0123456789',
          EMBEDDING_MODEL: 'none',
          DATA_DIR: dir,
          REDIS_URL: '',
          LOG_LEVEL: 'error',
        }),
        user,
      );

    it('asks a host that declared elicitation: decline writes nothing, accept deletes', async () => {
      const user: HostUser = { answer: () => ({ action: 'cancel' }), asked: [] };
      const host = await spawnHost(user);
      try {
        const id = seedDevice('leaf-stdio');
        const cancelled = answerOf((await host.callTool(deleteCall(id))) as CallToolResult);
        expect(cancelled).to.deep.include({ confirmation: 'cancelled' });
        expect(exists(id)).to.equal(true);
        user.answer = () => ({ action: 'accept', content: { approve: false } });
        expect(answerOf((await host.callTool(deleteCall(id))) as CallToolResult)).to.deep.include({ confirmation: 'declined' });
        expect(exists(id)).to.equal(true);
        user.answer = () => ({ action: 'accept', content: { approve: true } });
        expect(answerOf((await host.callTool(deleteCall(id))) as CallToolResult)).to.include({ status: 204 });
        expect(exists(id)).to.equal(false);
        expect(user.asked).to.have.length(3);
      } finally {
        await host.close();
      }
    });

    it('answers a host without elicitation a confirm token, and writes on the second call with it', async () => {
      const host = await spawnHost();
      try {
        const id = seedDevice('leaf-stdio-token');
        const first = answerOf((await host.callTool(deleteCall(id))) as CallToolResult);
        expect(first.confirmation).to.equal('token');
        expect(exists(id)).to.equal(true);
        const forged = (await host.callTool(deleteCall(id, { confirm_token: 'forged' }))) as CallToolResult;
        expect(forged.isError).to.equal(true);
        expect(exists(id)).to.equal(true);
        expect(answerOf((await host.callTool(deleteCall(id, { confirm_token: first.confirm_token }))) as CallToolResult)).to.include({
          status: 204,
        });
        expect(exists(id)).to.equal(false);
      } finally {
        await host.close();
      }
    });
  });
});
