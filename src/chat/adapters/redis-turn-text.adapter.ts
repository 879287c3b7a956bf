import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import { subscribeToChannel } from '../../kernel/redis/redis-subscription.js';
import type { TurnTextFeed, TurnTextPiece } from '../turn-text.port.js';

/*
 * Each turn's text is a RedisClient stream, `P:chat-text:{JOB}` (entries s: step, r: reset, t: text),
 * kept for `ttlSeconds` after its last piece. The script that adds a piece publishes it, with its
 * entry id, on one channel for every turn, `P:chat-text`. A reader subscribes (one connection per
 * process), then reads the stream from the start: what the read returns is delivered first, and
 * a published piece only if its id is past the last one delivered. After a lost subscription each
 * reader reads again from its last id. So no piece is missed or delivered twice.
 */

/** A turn's text is kept this long after its last piece (as long as its finished job). */
export const TURN_TEXT_TTL_S = 3_600;

const APPEND = `
local id = redis.call('XADD', KEYS[1], '*', 's', ARGV[1], 'r', ARGV[2], 't', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('PUBLISH', ARGV[5], cjson.encode({ j = ARGV[6], i = id, s = ARGV[1], r = ARGV[2], t = ARGV[3] }))
return id`;

type ScriptedRedis = RedisClient & { aiopsTurnTextAppend(key: string, ...args: string[]): Promise<string> };

interface Published {
  j: string;
  i: string;
  s: string;
  r: string;
  t: string;
}

/** Stream entry ids ("ms-seq") in order. */
function after(id: string, than: string): boolean {
  const [ms, seq] = id.split('-').map(Number) as [number, number];
  const [otherMs, otherSeq] = than.split('-').map(Number) as [number, number];
  return ms > otherMs || (ms === otherMs && seq > otherSeq);
}

function piece(step: string, reset: string, text: string): TurnTextPiece {
  return { step: Number(step), reset: reset === '1', text };
}

/** One reader of one turn: delivers in id order, each id once, reading the stream again when told. */
class Follower {
  private lastId = '0-0';
  private reading: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly read: (fromExclusive: string) => Promise<Array<[string, string[]]>>,
    private readonly listener: (piece: TurnTextPiece) => void,
  ) {}

  /** Delivers what the stream holds past the last piece delivered. */
  catchUp(): Promise<void> {
    return this.queue(async () => {
      for (const [id, fields] of await this.read(this.lastId)) {
        const values = new Map<string, string>();
        for (let index = 0; index + 1 < fields.length; index += 2) values.set(fields[index]!, fields[index + 1]!);
        this.deliver(id, piece(values.get('s') ?? '1', values.get('r') ?? '0', values.get('t') ?? ''));
      }
    });
  }

  /** A published piece, delivered after any read under way (which may already hold it). */
  published(message: Published): void {
    void this.queue(async () => this.deliver(message.i, piece(message.s, message.r, message.t)));
  }

  stop(): void {
    this.stopped = true;
  }

  /** Runs `work` after everything queued before it (a failed read does not stop what follows). */
  private queue(work: () => Promise<void>): Promise<void> {
    const next = this.reading.catch(() => undefined).then(work);
    this.reading = next;
    return next;
  }

  private deliver(id: string, text: TurnTextPiece): void {
    if (this.stopped || !after(id, this.lastId)) return;
    this.lastId = id;
    this.listener(text);
  }
}

export class RedisTurnTextFeed implements TurnTextFeed {
  private readonly redis: ScriptedRedis;
  private readonly channel: string;
  private readonly followers = new Map<string, Set<Follower>>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    redis: RedisClient,
    private readonly options: { prefix: string; ttlSeconds: number },
  ) {
    if (!('aiopsTurnTextAppend' in redis)) redis.defineCommand('aiopsTurnTextAppend', { numberOfKeys: 1, lua: APPEND });
    this.redis = redis as ScriptedRedis;
    this.channel = `${options.prefix}:chat-text`;
  }

  async append(jobId: string, text: TurnTextPiece): Promise<void> {
    await translateRedisError(
      this.redis.aiopsTurnTextAppend(
        this.key(jobId),
        String(text.step),
        text.reset ? '1' : '0',
        text.text,
        String(this.options.ttlSeconds),
        this.channel,
        jobId,
      ),
    );
  }

  async follow(jobId: string, listener: (piece: TurnTextPiece) => void): Promise<() => void> {
    this.listen();
    const follower = new Follower((from) => translateRedisError(this.redis.xrange(this.key(jobId), `(${from}`, '+')), listener);
    let followers = this.followers.get(jobId);
    if (!followers) this.followers.set(jobId, (followers = new Set()));
    followers.add(follower);
    const stop = () => {
      follower.stop();
      followers.delete(follower);
      if (followers.size === 0) this.followers.delete(jobId);
    };
    try {
      await follower.catchUp();
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** Stops hearing published pieces (the process is closing). */
  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** The one subscription of this process, made when the first reader comes. */
  private listen(): void {
    this.unsubscribe ??= subscribeToChannel(this.redis, this.channel, {
      message: (text) => {
        const message = JSON.parse(text) as Published;
        for (const follower of this.followers.get(message.j) ?? []) follower.published(message);
      },
      // (Re)subscribed: what was published meanwhile is read from the streams.
      live: () => {
        for (const followers of this.followers.values()) for (const follower of followers) void follower.catchUp().catch(() => undefined);
      },
      lost: () => undefined,
    });
  }

  private key(jobId: string): string {
    return `${this.options.prefix}:chat-text:{${jobId}}`;
  }
}
