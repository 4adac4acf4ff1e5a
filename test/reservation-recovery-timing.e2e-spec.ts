import { CreditsService } from '../src/users/credits.service';
import { CreditReservationEntity } from '../src/users/entities/credit-reservation.entity';
import { TestApp } from './support/test-app';

/**
 * docs/api-rules.md §8: the sweeps release a reservation whose create never finished
 * once VIDEO_UPSTREAM_TIMEOUT_MS + VIDEO_RESERVATION_GRACE_MS have passed
 * since it was made, at the next sweep (every VIDEO_RECOVERY_SWEEP_MS): not
 * before, and not much later.
 */
describe('Crash recovery timing', () => {
  const TIMEOUT_MS = 500;
  const GRACE_MS = 1000;
  const SWEEP_MS = 250;
  /** Room for a loaded machine: still far below a release 10 × the grace late (10.5 s). */
  const MARGIN_MS = 2500;

  it('releases an orphaned reservation at the first sweep after timeout + grace, not before and not later', async () => {
    const t = await TestApp.start({
      VIDEO_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      VIDEO_RESERVATION_GRACE_MS: String(GRACE_MS),
      VIDEO_RECOVERY_SWEEP_MS: String(SWEEP_MS),
    });
    try {
      const user = await t.createUser({ credits: 100 });
      // No create holds it: as if its process had died right after reserving.
      await t.app.get(CreditsService).reserve(user.id, 30);
      const reservations = t.dataSource.getRepository(CreditReservationEntity);
      const { id, createdAt } = await reservations.findOneByOrFail({ userId: user.id });

      // Polled every 50 ms; the time is read once a poll has found the row gone (so the release was no later).
      const latestMs = TIMEOUT_MS + GRACE_MS + SWEEP_MS + MARGIN_MS;
      let releasedAfterMs = Number.POSITIVE_INFINITY;
      while (Date.now() <= createdAt.getTime() + latestMs) {
        const open = await reservations.existsBy({ id });
        if (!open) {
          releasedAfterMs = Date.now() - createdAt.getTime();
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      expect(releasedAfterMs).toBeGreaterThanOrEqual(TIMEOUT_MS + GRACE_MS);
      expect(releasedAfterMs).toBeLessThanOrEqual(latestMs);
      const ledger = (await t.http.get('/users/me/ledger').set(user.auth).expect(200)).body.entries as { kind: string; amount: number }[];
      expect(ledger.filter((entry) => entry.kind === 'release')).toEqual([expect.objectContaining({ amount: 30 })]);
      expect((await t.http.get('/users/me').set(user.auth).expect(200)).body.credits).toBe(100);
    } finally {
      await t.close();
    }
  });
});
