import { expect } from 'chai';
import { RedisSessionStore } from '../../src/chat/adapters/redis-session-store.adapter.js';
import { primaries } from '../../src/kernel/redis/redis-client.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { startAiops } from '../support/processes.js';
import { startTestCluster, type TestTopology } from '../support/redis-topologies.js';
import { indexAndCheckHealth } from '../support/topology-jobs.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const MODELS = '/api/plugins/ai-ops/llm-models/';

describe('on a Redis Cluster (3 primaries, 3 replicas)', function () {
  this.timeout(60_000);
  let cluster: (TestTopology & { ports: number[] }) | undefined;
  let sut: ChatHarness;

  before(async () => {
    cluster = await startTestCluster();
    sut = await startChatHarness(cluster);
  });

  after(async () => {
    await sut?.close();
    await cluster?.destroy();
  });

  it('creates an API token from the command line, which the API then accepts', async () => {
    const cli = startAiops(['token', 'create', '--user', 'ops', '--superuser'], { ...cluster!.env, REDIS_KEY_PREFIX: sut.prefix });
    expect(await cli.exited).to.equal(0);
    const key = cli.lines.at(-1)!;
    const listed = await sut.call('GET', MODELS, { key });
    expect(listed.status).to.equal(200);
  });

  it('writes and reads records, and answers a chat turn that is stored', async () => {
    const admin = (
      await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null })
    ).key;
    const model = await sut.model();
    const created = await sut.call('PATCH', `${MODELS}${model.id}/`, { key: admin, body: { description: 'on a cluster' } });
    expect(created.status).to.equal(200);
    expect((await sut.call('GET', `${MODELS}${model.id}/`, { key: admin })).body).to.include({ description: 'on a cluster' });
    const alice = await sut.token('alice');
    const turn = await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } });
    expect(turn.status).to.equal(200);
    const session = await sut.call('GET', `${CHAT}sessions/${turn.body.session_id}/`, { key: alice });
    expect(session.body.turns).to.equal(1);
  });

  it('gives each queue a hash tag of its own, so their load spreads over the primaries', async () => {
    const tags = ['chat', 'health', 'index'].map((queue) => `{${sut.prefix}:${queue}}`);
    const slots = await Promise.all(tags.map((tag) => cluster!.client.cluster('KEYSLOT', tag)));
    expect(new Set(slots).size).to.equal(3);
    expect(await cluster!.client.exists(`${tags[0]}:chat:meta`)).to.equal(1);
  });

  it('keeps sessions in database 0 and cleans up the expired ones on every primary', async () => {
    const store = new RedisSessionStore(cluster!.client, { prefix: sut.prefix, ttlSeconds: 3_600 });
    const users = Array.from({ length: 12 }, (_, index) => `user${index}`);
    for (const user of users) {
      await store.append(user, 's1', {
        turnId: 't1',
        generation: 0,
        title: 'x',
        model: 'm',
        response: 'r',
        messages: [{ role: 'user', content: 'q', turn_id: 't1', created: new Date().toISOString() }],
      });
    }
    // Sessions whose data is gone count as expired: drop every session's meta.
    for (const user of users) await cluster!.client.del(`{${sut.prefix}:chat:${user}}:s:s1:meta`);
    const holders = await Promise.all(
      primaries(cluster!.client).map(async (node) => (await node.keys(`{${sut.prefix}:chat:*}:sessions`)).length),
    );
    expect(holders.filter((count) => count > 0).length).to.be.greaterThan(1);
    expect(await store.removeExpired()).to.deep.equal({ sessions: users.length });
  });

  it('indexes a repository the API was asked to add, on a worker elsewhere, and runs a health check asked for through the API', async () => {
    await indexAndCheckHealth(sut, cluster!);
  });

  it('answers /status 200 with Redis ok', async () => {
    const status = await sut.call('GET', '/status', { key: '' });
    expect(status.status).to.equal(200);
    expect(status.body).to.include({ redis: 'ok' });
  });
});
