import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { UsersService } from '../../users/users.service';
import { CallbackDeliveryEntity } from '../entities/callback-delivery.entity';
import { videoConfig, VideoConfig } from '../video.config';
import { resolvesToNonPublic } from './callback-address';
import { CallbackOutbox } from './callback-outbox';

export const MAX_DELIVERY_ATTEMPTS = 15;
export const MAX_RETRY_DELAY_MS = 10 * 60 * 1000;
const POLL_INTERVAL_MS = 250;
const DELIVERY_TIMEOUT_MS = 10_000;
/** Long enough for one attempt; a crashed worker's claim expires after it. */
const LEASE_MS = 60_000;
const BATCH = 200;

/** Delay before attempt n+1 after n failed attempts: base, doubling, capped at 10 minutes. */
export function retryDelayMs(failedAttempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** (failedAttempts - 1), MAX_RETRY_DELAY_MS);
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the user's webhook secret. */
export function callbackSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Delivers queued client callbacks. Rows live in the database, so a restart
 * loses nothing; a task's callbacks go out strictly in order (a later one
 * waits until the earlier one is delivered or abandoned); failures retry with
 * exponential backoff, up to 15 attempts (about an hour).
 */
@Injectable()
export class CallbackDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(CallbackDeliveryWorker.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly outbox: CallbackOutbox,
    private readonly users: UsersService,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.deliverDue()
        .catch((error: unknown) => this.logger.error({ err: error }, 'callback delivery round failed'))
        .finally(() => this.schedule());
    }, POLL_INTERVAL_MS);
    this.timer.unref();
  }

  /** One round: the first pending delivery of each task, if it is due. */
  async deliverDue(): Promise<void> {
    const now = Date.now();
    const seenTasks = new Set<string>();
    const due: CallbackDeliveryEntity[] = [];
    for (const delivery of await this.outbox.pending(BATCH)) {
      if (seenTasks.has(delivery.taskId)) continue;
      seenTasks.add(delivery.taskId);
      if (delivery.nextAttemptAt.getTime() <= now) due.push(delivery);
    }
    await Promise.all(due.map((delivery) => this.attempt(delivery)));
  }

  private async attempt(delivery: CallbackDeliveryEntity): Promise<void> {
    if (this.stopped || !(await this.outbox.claim(delivery, new Date(Date.now() + LEASE_MS)))) return;
    const attempt = delivery.attempts + 1;
    if (this.config.CALLBACK_ALLOW_PRIVATE !== 'true' && (await this.refusedAddress(delivery.url))) {
      await this.outbox.settle(delivery.id, { abandonedAt: new Date(), lastError: 'callback address is loopback or private' });
      return;
    }
    const failure = await this.post(delivery);
    if (!failure) {
      await this.outbox.settle(delivery.id, { deliveredAt: new Date(), lastError: null });
      return;
    }
    if (attempt >= MAX_DELIVERY_ATTEMPTS) {
      this.logger.warn({ deliveryId: delivery.id, taskId: delivery.taskId }, `callback abandoned after ${attempt} attempts: ${failure}`);
      await this.outbox.settle(delivery.id, { abandonedAt: new Date(), lastError: failure });
      return;
    }
    const nextAttemptAt = new Date(Date.now() + retryDelayMs(attempt, this.config.CALLBACK_RETRY_BASE_MS));
    await this.outbox.settle(delivery.id, { nextAttemptAt, lastError: failure });
  }

  private async refusedAddress(url: string): Promise<boolean> {
    try {
      return await resolvesToNonPublic(url);
    } catch {
      return false; // unresolvable now: let the attempt fail and retry later
    }
  }

  /** Sends one callback; returns why it failed, or undefined on a 2xx. */
  private async post(delivery: CallbackDeliveryEntity): Promise<string | undefined> {
    try {
      const { secret } = await this.users.webhookSecret(delivery.userId);
      const response = await fetch(delivery.url, {
        method: 'POST',
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'node-registry-callbacks/1',
          'X-Signature': callbackSignature(secret, delivery.body),
          'X-Timestamp': String(Math.floor(Date.now() / 1000)),
          'X-Delivery-Id': String(delivery.id),
          'X-Task-Id': delivery.taskId,
        },
      });
      await response.body?.cancel();
      return response.ok ? undefined : `HTTP ${response.status}`;
    } catch (error) {
      return (error as Error).name === 'TimeoutError' ? 'timed out' : `request failed: ${(error as Error).message}`.slice(0, 500);
    }
  }
}
