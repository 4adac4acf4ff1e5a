/** The longest time between two background checks of one running task. */
const MAX_CHECK_INTERVAL_MS = 10 * 60 * 1000;

/**
 * When a running task created at `createdAt` is next asked about, after a
 * check at `now`: a tenth of its age from now, at least `minIntervalMs`, at
 * most 10 minutes. A young task's end is learned soon; a task left for days
 * (off-peak ones may take 48 hours) costs the upstream one call in 10 minutes.
 */
export function nextStatusCheck(createdAt: Date, now: Date, minIntervalMs: number): Date {
  const age = Math.max(0, now.getTime() - createdAt.getTime());
  return new Date(now.getTime() + Math.min(Math.max(age / 10, minIntervalMs), MAX_CHECK_INTERVAL_MS));
}
