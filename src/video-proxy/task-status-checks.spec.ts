import { nextStatusCheck } from './task-status-checks';

describe('nextStatusCheck', () => {
  const created = new Date('2026-11-27T10:00:00Z');
  const after = (ms: number) => new Date(created.getTime() + ms);
  const intervalAt = (ageMs: number) => nextStatusCheck(created, after(ageMs), 15_000).getTime() - after(ageMs).getTime();

  it('asks a young task again after the shortest interval', () => {
    expect(intervalAt(0)).toBe(15_000);
    expect(intervalAt(60_000)).toBe(15_000);
  });

  it('waits a tenth of the task’s age once that is longer, at most 10 minutes', () => {
    expect(intervalAt(5 * 60_000)).toBe(30_000);
    expect(intervalAt(60 * 60_000)).toBe(6 * 60_000);
    expect(intervalAt(48 * 60 * 60_000)).toBe(10 * 60_000);
  });
});
