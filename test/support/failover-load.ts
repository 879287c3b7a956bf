import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { startTestSentinel, type TestSentinel } from './redis-topologies.js';
import { until } from './until.js';

/**
 * A primary, a replica and three Sentinels with the API and a chat worker on them, a model and a
 * chat user; a turn a failover lost answers 202 after 5 s rather than hold the load's loop.
 */
export async function startSentinelChat(): Promise<{ sentinel: TestSentinel; sut: ChatHarness; alice: string; close(): Promise<void> }> {
  const sentinel = await startTestSentinel();
  const sut = await startChatHarness(sentinel, { waitMs: 5_000 });
  await sut.model();
  return {
    sentinel,
    sut,
    alice: await sut.token('alice'),
    async close() {
      await sut.close();
      await sentinel.destroy();
    },
  };
}

const CHAT = '/plugins/ai-ops/api/chat/';
/** Sessions asking turn after turn while Redis fails over: a small, bounded load. */
const SESSIONS = 3;

export interface LoadFigures {
  answered: number;
  /** Answered 200 but not in their session afterwards. */
  lost: number;
  serverErrors: number;
  /** From the failover's start to the answer of the first turn asked once the new primary was named. */
  recoverSeconds: number;
}

/**
 * Runs SESSIONS loops of chat turns, then `failover`, then carries on until turns asked after it are
 * answered again; then reads every session back and counts the answered turns it does not hold.
 */
export async function failoverUnderLoad(sut: ChatHarness, key: string, failover: () => Promise<void>): Promise<LoadFigures> {
  let running = true;
  let failoverStarted = Number.POSITIVE_INFINITY;
  /** When the Sentinels named the new primary: a turn asked before may still have been served by the old one. */
  let promotedAt = Number.POSITIVE_INFINITY;
  let recoveredAt = 0;
  let serverErrors = 0;
  const answered: Array<{ session: string; message: string }> = [];
  const loop = async (index: number) => {
    let session: string | undefined;
    for (let turn = 0; running; turn++) {
      const message = `question ${index}-${turn}`;
      const asked = Date.now();
      const reply = await sut
        .call('POST', CHAT, { key, body: { message, ...(session ? { session_id: session } : {}) } })
        .catch(() => undefined);
      if (reply?.status === 200) {
        session = reply.body.session_id as string;
        answered.push({ session, message });
        if (asked > promotedAt && recoveredAt === 0) recoveredAt = Date.now();
      } else if (!reply || reply.status >= 500) {
        serverErrors++;
        // A client backs off a little, rather than spin on the 503s of the failover.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const loops = Array.from({ length: SESSIONS }, (_, index) => loop(index));
  try {
    await until(() => answered.length >= 10, 20_000, 'turns before the failover', 50);
    failoverStarted = Date.now();
    await failover();
    promotedAt = Date.now();
    // A stored turn waits for a replica (REDIS_WAIT_REPLICAS): after a crash the old primary rejoins
    // as one only when a Sentinel next looks at it, which it does every 10 s.
    await until(() => recoveredAt > 0, 45_000, 'a turn asked after the failover to be answered', 100);
    const after = answered.length;
    await until(() => answered.length >= after + 3, 20_000, 'more turns after the failover', 50);
  } finally {
    running = false;
    await Promise.all(loops);
  }
  let lost = 0;
  const sessions = new Map<string, Set<string>>();
  for (const { session, message } of answered) {
    if (!sessions.has(session)) {
      const detail = await sut.call('GET', `${CHAT}sessions/${session}/`, { key });
      const messages = (detail.body.messages ?? []) as Array<{ role: string; content: string }>;
      sessions.set(session, new Set(messages.filter((item) => item.role === 'user').map((item) => item.content)));
    }
    if (!sessions.get(session)!.has(message)) lost++;
  }
  return { answered: answered.length, lost, serverErrors, recoverSeconds: (recoveredAt - failoverStarted) / 1_000 };
}

/** One line of figures, printed by the failover tests. */
export function describeFigures(kind: string, figures: LoadFigures): string {
  return `${kind}: ${figures.answered} turns answered, ${figures.lost} of them not stored, ${figures.serverErrors} 5xx, recovered in ${figures.recoverSeconds.toFixed(1)} s`;
}
