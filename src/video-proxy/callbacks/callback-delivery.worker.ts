import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import { createHmac } from 'node:crypto';
import { Counter } from 'prom-client';
import { forEachConcurrently } from '../../common/scheduling/for-each-concurrently';
import { PeriodicJob } from '../../common/scheduling/periodic-job';
import { UsersService } from '../../users/users.service';
import { videoConfig, VideoConfig } from '../video.config';
import { postJson, RefusedAddressError } from './callback-http';
import { DueDelivery } from './callback-deliveries.repository';
import { CallbackOutbox } from './callback-outbox';

export const MAX_DELIVERY_ATTEMPTS = 15;
/** The counters of failed attempts (declared in video-proxy-metrics.ts). */
export const CALLBACK_RETRIES = 'registry_callback_delivery_retries_total';
export const CALLBACKS_ABANDONED = 'registry_callback_deliveries_abandoned_total';
export const MAX_RETRY_DELAY_MS = 10 * 60 * 1000;
const POLL_INTERVAL_MS = 250;
const DELIVERY_TIMEOUT_MS = 10_000;
/** Long enough for one attempt; a crashed worker's claim expires after it. */
const LEASE_MS = 60_000;
const BATCH = 64;
/** Deliveries in flight at once: a slow receiver holds one slot, not the round. */
const CONCURRENCY = 8;

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
  // A shutdown waits for the attempts in flight to end (at most DELIVERY_TIMEOUT_MS) and be recorded: one cut short
  // would be delivered again by the next process once its lease ran out.
  private readonly rounds = new PeriodicJob('callback delivery round', POLL_INTERVAL_MS, (stopping) => this.deliverDue(stopping), this.logger, DELIVERY_TIMEOUT_MS + 2000);

  constructor(
    private readonly outbox: CallbackOutbox,
    private readonly users: UsersService,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
    @InjectMetric(CALLBACK_RETRIES) private readonly retries: Counter,
    @InjectMetric(CALLBACKS_ABANDONED) private readonly abandoned: Counter<'reason'>,
  ) {}

  onApplicationBootstrap(): void {
    this.rounds.start();
  }

  /** Attempts in flight finish and are recorded; none starts after this. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
  }

  /** One round: the due deliveries that head their task's queue, a few at a time (a slow receiver holds one lane). */
  private async deliverDue(stopping: AbortSignal): Promise<void> {
    await forEachConcurrently(
      await this.outbox.dueHeads(new Date(), BATCH),
      CONCURRENCY,
      stopping,
      (delivery) => this.attempt(delivery),
      (delivery, error) => this.logger.error({ err: error, deliveryId: delivery.id }, 'callback delivery attempt failed'),
    );
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const body = await this.outbox.claim(delivery, new Date(Date.now() + LEASE_MS));
    if (body === undefined) return;
    const attempt = delivery.attempts + 1;
    // An attempt that cannot even be sent (the webhook secret unreadable, say) is a failed attempt like
    // any other: left to the lease instead, it would be retried forever and hold up the task's later callbacks.
    const failure = await this.post(delivery, body).catch((error: unknown) =>
      `could not send: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500),
    );
    if (failure instanceof RefusedAddressError) {
      await this.outbox.settle(delivery.id, { abandonedAt: new Date(), lastError: failure.message.slice(0, 500) });
      this.abandoned.inc({ reason: 'address_refused' });
      return;
    }
    if (!failure) {
      await this.outbox.settle(delivery.id, { deliveredAt: new Date(), lastError: null });
      return;
    }
    if (attempt >= MAX_DELIVERY_ATTEMPTS) {
      this.logger.warn({ deliveryId: delivery.id, taskId: delivery.taskId }, `callback abandoned after ${attempt} attempts: ${failure}`);
      await this.outbox.settle(delivery.id, { abandonedAt: new Date(), lastError: failure });
      this.abandoned.inc({ reason: 'attempts_exhausted' });
      return;
    }
    const nextAttemptAt = new Date(Date.now() + retryDelayMs(attempt, this.config.CALLBACK_RETRY_BASE_MS));
    await this.outbox.settle(delivery.id, { nextAttemptAt, lastError: failure });
    this.retries.inc();
  }

  /**
   * Sends one callback: undefined when delivered (2xx), otherwise why not, as
   * text, or the RefusedAddressError that ends the delivery for good.
   */
  private async post(delivery: DueDelivery, body: string): Promise<string | RefusedAddressError | undefined> {
    const { secret } = await this.users.webhookSecret(delivery.userId);
    const result = await postJson(
      delivery.url,
      body,
      {
        'Content-Type': 'application/json',
        'User-Agent': 'node-registry-callbacks/1',
        'X-Signature': callbackSignature(secret, body),
        'X-Timestamp': String(Math.floor(Date.now() / 1000)),
        'X-Delivery-Id': String(delivery.id),
        'X-Task-Id': delivery.taskId,
      },
      { allowPrivate: this.config.CALLBACK_ALLOW_PRIVATE === 'true', timeoutMs: DELIVERY_TIMEOUT_MS },
    );
    if (result.error instanceof RefusedAddressError) return result.error;
    if (result.error) return `request failed: ${result.error.message}`.slice(0, 500);
    return result.status !== undefined && result.status >= 200 && result.status < 300 ? undefined : `HTTP ${result.status}`;
  }
}
