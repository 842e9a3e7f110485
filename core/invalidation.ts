import type { RedisClientType } from 'redis';
import type { Logger } from './logger.js';

type RedisClient = RedisClientType;
type Listener = (id: string) => void;

/**
 * Tells every gw instance that a cached resource changed (a revoked key, an edited config).
 * Local listeners run at once, before publish returns, so the next request in this process
 * already sees the change; other instances hear it through Redis pub/sub when Redis is set.
 */
export interface InvalidationBus {
  publish(topic: string, id: string): Promise<void>;
  subscribe(topic: string, listener: Listener): void;
  close(): Promise<void>;
}

export class LocalInvalidationBus implements InvalidationBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  async publish(topic: string, id: string): Promise<void> {
    this.deliver(topic, id);
  }

  subscribe(topic: string, listener: Listener): void {
    const set = this.listeners.get(topic) ?? new Set();
    set.add(listener);
    this.listeners.set(topic, set);
  }

  protected deliver(topic: string, id: string): void {
    for (const listener of this.listeners.get(topic) ?? []) listener(id);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

export class RedisInvalidationBus extends LocalInvalidationBus {
  private constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly channel: string,
  ) {
    super();
  }

  static async connect(client: RedisClient, prefix: string, logger: Logger): Promise<RedisInvalidationBus> {
    const channel = `${prefix}invalidate`;
    const subscriber = client.duplicate();
    subscriber.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis subscriber error'));
    await subscriber.connect();
    const bus = new RedisInvalidationBus(client, subscriber, channel);
    await subscriber.subscribe(channel, (message: string) => {
      const { topic, id } = JSON.parse(message) as { topic: string; id: string };
      bus.deliver(topic, id);
    });
    return bus;
  }

  override async publish(topic: string, id: string): Promise<void> {
    this.deliver(topic, id);
    await this.publisher.publish(this.channel, JSON.stringify({ topic, id }));
  }

  override async close(): Promise<void> {
    await super.close();
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
    await this.subscriber.quit().catch(() => undefined);
  }
}
