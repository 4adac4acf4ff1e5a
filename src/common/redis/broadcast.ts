import { Injectable, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS_KEY_PREFIX, SharedRedis } from './shared-redis';

export interface BroadcastListener {
  /** A message on the channel, from any instance (this one included). */
  message(message: string): void;
  /**
   * Messages may have been missed (the subscription was down): anything
   * cached on the strength of them must be dropped.
   */
  resync(): void;
}

/**
 * Messages to every instance of the service. Without REDIS_URL there is one
 * instance and they stay in process; with it they go through Redis pub/sub.
 */
@Injectable()
export class Broadcast implements OnModuleInit {
  private readonly listeners = new Map<string, BroadcastListener[]>();
  private subscriber: Redis | null = null;
  private subscribed = false;

  constructor(private readonly redis: SharedRedis) {}

  onModuleInit(): void {
    this.subscriber = this.redis.connection();
    if (!this.subscriber) return;
    this.subscriber.on('message', (channel: string, message: string) => this.deliver(channel, message));
    this.subscriber.on('ready', () => void this.resubscribe());
    this.subscriber.on('close', () => (this.subscribed = false));
  }

  /**
   * True while every message sent is sure to arrive here: always in process;
   * with Redis, only while subscribed. A cache kept valid by messages must
   * not be trusted otherwise.
   */
  get reliable(): boolean {
    return this.subscriber === null || this.subscribed;
  }

  /** Redis is reachable and this instance subscribed (always true in process): what the metrics call connected. */
  get connected(): boolean {
    return this.reliable && (this.subscriber === null || this.redis.available);
  }

  listen(channel: string, listener: BroadcastListener): void {
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
  }

  /** Sends to every instance. Never throws: a Redis failure is logged (once a minute). */
  async publish(channel: string, message: string): Promise<void> {
    if (!this.subscriber) {
      this.deliver(REDIS_KEY_PREFIX + channel, message);
      return;
    }
    try {
      await this.redis.client?.publish(REDIS_KEY_PREFIX + channel, message);
    } catch (error) {
      this.redis.warn(error, `a '${channel}' message reached only this instance`);
    }
  }

  private deliver(prefixedChannel: string, message: string): void {
    for (const listener of this.listeners.get(prefixedChannel.slice(REDIS_KEY_PREFIX.length)) ?? []) listener.message(message);
  }

  /** On every (re)connection: subscribe, and drop what may have gone stale while messages could not arrive. */
  private async resubscribe(): Promise<void> {
    try {
      if (this.listeners.size > 0) await this.subscriber?.subscribe(...[...this.listeners.keys()].map((channel) => REDIS_KEY_PREFIX + channel));
      for (const listeners of this.listeners.values()) for (const listener of listeners) listener.resync();
      this.subscribed = true;
    } catch (error) {
      this.redis.warn(error, 'cached auth is not used until the subscription is back');
    }
  }
}
