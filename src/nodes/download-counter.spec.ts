import { Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { EntityManager } from 'typeorm';
import { TransactionRunner } from '../database/transaction-runner';
import { DownloadCounter } from './download-counter';
import { NodesRepository } from './nodes.repository';

describe('DownloadCounter', () => {
  let databaseUp: boolean;
  let written: Array<Record<string, number>>;
  let counter: DownloadCounter;
  let errors: jest.SpyInstance;

  beforeEach(() => {
    jest.useFakeTimers();
    databaseUp = true;
    written = [];
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const nodes = {
      addDownloads: (_manager: EntityManager, batch: Map<string, number>) => {
        if (!databaseUp) return Promise.reject(new Error('database unreachable'));
        written.push(Object.fromEntries(batch));
        return Promise.resolve();
      },
    };
    const tx = { run: <T>(work: (manager: EntityManager) => Promise<T>) => work({} as EntityManager) };
    counter = new DownloadCounter(nodes as unknown as NodesRepository, tx as unknown as TransactionRunner, { inc: () => undefined } as unknown as Counter);
    counter.onModuleInit();
  });
  afterEach(async () => {
    databaseUp = true;
    await counter.onApplicationShutdown();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('writes the counts of each second as one batch', async () => {
    counter.count('a');
    counter.count('a');
    counter.count('b', 3);
    await jest.advanceTimersByTimeAsync(1100);
    expect(written).toEqual([{ a: 2, b: 3 }]);
  });

  it('keeps the counts through a database outage, logging it once, not every second, and writes them all after', async () => {
    databaseUp = false;
    counter.count('a');
    await jest.advanceTimersByTimeAsync(10_000);
    counter.count('a');
    await jest.advanceTimersByTimeAsync(10_000);
    expect(written).toEqual([]);
    expect(errors).toHaveBeenCalledTimes(1);
    databaseUp = true;
    await jest.advanceTimersByTimeAsync(1100);
    expect(written).toEqual([{ a: 2 }]);
  });

  it('writes what is left at shutdown, and says how many counts it lost when it cannot', async () => {
    counter.count('a');
    await counter.onApplicationShutdown();
    expect(written).toEqual([{ a: 1 }]);

    databaseUp = false;
    counter.count('b', 4);
    await expect(counter.onApplicationShutdown()).resolves.toBeUndefined();
    expect(errors).toHaveBeenLastCalledWith(expect.anything(), '4 counted downloads could not be written before the shutdown');
  });
});
