import { forEachConcurrently } from './for-each-concurrently';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('forEachConcurrently', () => {
  it('runs every item, never more than `concurrency` at once, a slow one holding only its lane', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await forEachConcurrently([1, 2, 3, 4, 5, 6], 2, new AbortController().signal, async (item) => {
      running++;
      most = Math.max(most, running);
      for (let i = 0; i < (item === 1 ? 10 : 1); i++) await tick();
      running--;
      done.push(item);
    }, () => undefined);
    expect(most).toBe(2);
    expect(done).toEqual([2, 3, 4, 5, 6, 1]);
  });

  it('hands a failed item to `failed` and goes on with the rest', async () => {
    const failures: Array<[number, unknown]> = [];
    const done: number[] = [];
    await forEachConcurrently([1, 2, 3], 1, new AbortController().signal, async (item) => {
      await tick();
      if (item === 2) throw new Error('two');
      done.push(item);
    }, (item, error) => failures.push([item, error]));
    expect(done).toEqual([1, 3]);
    expect(failures).toEqual([[2, new Error('two')]]);
  });

  it('starts no item once stopping is aborted, and lets those running end', async () => {
    const stopping = new AbortController();
    const started: number[] = [];
    await forEachConcurrently([1, 2, 3, 4], 2, stopping.signal, async (item) => {
      started.push(item);
      await tick();
      stopping.abort();
    }, () => undefined);
    expect(started).toEqual([1, 2]);
  });
});
