import { Provider } from '@nestjs/common';
import { makeCounterProvider } from '@willsoto/nestjs-prometheus';
import { makeScrapeGaugeProvider } from '../metrics/scrape-gauge';
import { CREDITS_REFUNDED, CREDITS_RELEASED, CREDITS_SETTLED, CreditsService } from './credits.service';

/**
 * Credits (docs/decisions.md#metrics): what this instance moved, counted by
 * CreditsService, and what open reservations hold, read from the database
 * on scrape, so every instance reports the same.
 */
export const CREDIT_METRICS: Provider[] = [
  makeCounterProvider({ name: CREDITS_SETTLED, help: 'Credits charged when a reservation was settled to the upstream’s figure' }),
  makeCounterProvider({ name: CREDITS_RELEASED, help: 'Credits given back from reservations whose work never started, or whose process died' }),
  makeCounterProvider({ name: CREDITS_REFUNDED, help: 'Credits refunded for failed tasks' }),
  makeScrapeGaugeProvider({
    name: 'registry_credits_reserved',
    help: 'Credits held by open reservations right now, across all instances',
    owner: CreditsService,
    read: async (credits: CreditsService) => (await credits.openReservations()).credits,
  }),
  makeScrapeGaugeProvider({
    name: 'registry_credits_oldest_reservation_age_seconds',
    help: 'How long the oldest open reservation has been held (0: none is open)',
    owner: CreditsService,
    read: async (credits: CreditsService) => {
      const { oldestCreatedAt } = await credits.openReservations();
      return oldestCreatedAt === null ? 0 : Math.max(0, (Date.now() - oldestCreatedAt.getTime()) / 1000);
    },
  }),
];
