import { expect } from 'chai';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startChatHarness, type ChatHarness } from './chat-harness.js';

const CHAT = '/plugins/ai-ops/api/chat/';
const SESSION_DB = 3;

/**
 * REDIS_URL's database number is the records' database; the sessions' is SESSION_REDIS_DB in the
 * API and the worker alike, so what the worker writes the API lists and reads.
 */
describe('The sessions database whatever REDIS_URL names', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });

  for (const database of [0, 5]) {
    it(`with REDIS_URL ending in /${database}, lists and reads the sessions the worker wrote, kept in SESSION_REDIS_DB`, async () => {
      const records = redis.client.duplicate({ db: database });
      const sessions = redis.client.duplicate({ db: SESSION_DB });
      let sut: ChatHarness | undefined;
      try {
        sut = await startChatHarness(
          { ...redis, url: `${redis.url}/${database}`, client: records },
          { env: { SESSION_REDIS_DB: String(SESSION_DB) } },
        );
        await sut.model();
        const alice = await sut.token('alice');
        const answered = await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } });
        expect(answered.status, JSON.stringify(answered.body)).to.equal(200);
        const listed = await sut.call('GET', `${CHAT}sessions/`, { key: alice });
        expect(listed.body.results.map((session: { id: string }) => session.id)).to.deep.equal([answered.body.session_id]);
        const read = await sut.call('GET', `${CHAT}sessions/${answered.body.session_id}/`, { key: alice });
        expect(read.status).to.equal(200);
        expect(read.body).to.include({ id: answered.body.session_id, turns: 1 });
        const inSessionDb = await sessions.keys(`{${sut.prefix}:chat:*`);
        expect(inSessionDb, 'the session is in SESSION_REDIS_DB').to.not.be.empty;
        const inRecordsDb = await records.keys(`*${sut.prefix}*`);
        expect(
          inRecordsDb.filter((key) => inSessionDb.includes(key)),
          "nothing of the session in the URL's database",
        ).to.deep.equal([]);
        expect(inRecordsDb, "the records are in the URL's database").to.not.be.empty;
      } finally {
        await sut?.close();
        records.disconnect();
        sessions.disconnect();
      }
    });
  }
});
