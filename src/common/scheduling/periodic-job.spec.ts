import { Logger } from '@nestjs/common';
import { PeriodicJob } from './periodic-job';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PeriodicJob', () => {
  const logger = new Logger('test');

  it('runs at once, then again after each run, and a failed run does not stop it', async () => {
    let runs = 0;
    const work = () => {
      runs += 1;
      return runs === 2 ? Promise.reject(new Error('one bad run')) : Promise.resolve();
    };
    const job = new PeriodicJob('a job', 10, work, logger);
    const logged = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    job.start();
    await sleep(100);
    await job.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(logged).toHaveBeenCalledTimes(1);
    const stoppedAt = runs;
    await sleep(50);
    expect(runs).toBe(stoppedAt);
  });

  it('tells a run in progress that it is stopping, and waits for it to end', async () => {
    let sawStop = false;
    let ended = false;
    const job = new PeriodicJob('a job', 10, async (stopping) => {
      while (!stopping.aborted) await sleep(5);
      sawStop = true;
      await sleep(20);
      ended = true;
    }, logger);
    job.start();
    await sleep(20);
    await job.stop();
    expect({ sawStop, ended }).toEqual({ sawStop: true, ended: true });
  });

  it('waits for a run in progress at most its shutdown wait', async () => {
    /** Whether a run of 150 ms had ended when stop() returned, with that shutdown wait. */
    const endedBeforeStopReturned = async (shutdownWaitMs: number) => {
      let ended = false;
      const job = new PeriodicJob('a job', 10, async () => {
        await sleep(150);
        ended = true;
      }, logger, shutdownWaitMs);
      job.start();
      await job.stop();
      return ended;
    };
    expect(await endedBeforeStopReturned(50)).toBe(false);
    expect(await endedBeforeStopReturned(1000)).toBe(true);
  });
});
