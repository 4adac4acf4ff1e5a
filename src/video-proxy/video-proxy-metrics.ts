import { Provider } from '@nestjs/common';
import { makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import { makeScrapeGaugeProvider } from '../metrics/scrape-gauge';
import { CALLBACK_RETRIES, CALLBACKS_ABANDONED } from './callbacks/callback-delivery.worker';
import { CallbackOutbox } from './callbacks/callback-outbox';
import { UPSTREAM_CALLS, UpstreamCalls } from './upstream/upstream-calls';
import { videoConfig, VideoConfig } from './video.config';

/**
 * The video proxy's figures (docs/decisions.md#metrics): upstream calls and
 * client-callback attempts this instance made, the deliveries still pending
 * (read from the outbox on scrape), and how long a reservation can stay open
 * before the recovery sweep releases it (for the alert on older ones).
 */
export const VIDEO_PROXY_METRICS: Provider[] = [
  makeHistogramProvider({
    name: UPSTREAM_CALLS,
    help: 'Calls to the upstream video API by operation (create, poll, cancel) and outcome (ok, 4xx, 5xx, timeout, error: no reply), in seconds',
    labelNames: ['operation', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  }),
  UpstreamCalls,
  makeCounterProvider({ name: CALLBACK_RETRIES, help: 'Client callback attempts that failed and will be retried' }),
  makeCounterProvider({
    name: CALLBACKS_ABANDONED,
    help: 'Client callbacks given up, by reason (attempts_exhausted, address_refused)',
    labelNames: ['reason'],
  }),
  makeScrapeGaugeProvider({
    name: 'registry_callback_deliveries_pending',
    help: 'Client callbacks neither delivered nor given up yet, across all instances',
    owner: CallbackOutbox,
    read: (outbox: CallbackOutbox) => outbox.pendingCount(),
  }),
  makeScrapeGaugeProvider({
    name: 'registry_video_reservation_recovery_window_seconds',
    help: 'How long a credit reservation may stay open before a recovery sweep releases it (upstream timeout, grace and sweep interval)',
    owner: videoConfig.KEY,
    read: (config: VideoConfig) => (config.VIDEO_UPSTREAM_TIMEOUT_MS + config.VIDEO_RESERVATION_GRACE_MS + config.VIDEO_RECOVERY_SWEEP_MS) / 1000,
  }),
];
