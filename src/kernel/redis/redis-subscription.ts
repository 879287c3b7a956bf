import { duplicateClient, type RedisClient, type RedisOptions } from './redis-client.js';

export interface ChannelListener {
  message(text: string): void;
  /** The subscription is (again) in place: messages sent before may have been missed. */
  live(): void;
  /** The subscription is down: messages are not heard until `live`. */
  lost(): void;
}

/**
 * Listens on one pub/sub channel over a connection of its own (a subscribed connection can do
 * nothing else). It reconnects by itself and subscribes again each time; `live` is called only
 * once Redis has confirmed the subscription, so nothing published after `live` can be missed.
 * Never blocks on a Redis outage. `redis`: a client to copy the connection settings of (on a
 * cluster, PUBLISH reaches every node, so any one will do). Returns the stop.
 */
export function subscribeToChannel(redis: RedisClient, channel: string, listener: ChannelListener): () => void {
  // Our own SUBSCRIBE after every connect: ioredis's automatic one is sent after its `ready`
  // event, which would leave a window where a message could be missed after `live`.
  const own: RedisOptions = {
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    lazyConnect: false,
    autoResubscribe: false,
    enableAutoPipelining: false,
  };
  const subscriber = duplicateClient(redis, own);
  subscriber.on('error', () => {
    // The main client reports outages.
  });
  subscriber.on('message', (from: string, text: string) => {
    if (from === channel) listener.message(text);
  });
  subscriber.on('close', () => listener.lost());
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => listener.live(),
      () => listener.lost(),
    );
  });
  return () => subscriber.disconnect();
}
