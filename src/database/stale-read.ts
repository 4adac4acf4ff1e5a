import { ConflictException } from '@nestjs/common';

/**
 * Thrown inside a write when a row is no longer as the request read it
 * before writing (a guarded UPDATE matched nothing, e.g. an admin banned the
 * node in between): the write is rolled back and redone from the read.
 */
export class StaleReadError extends Error {
  constructor(what: string) {
    super(`${what} changed while this request was writing it`);
  }
}

/** Concurrent changes to a guarded column are rare; a request that keeps losing is told to retry. */
const ATTEMPTS = 3;

/**
 * Runs `attempt` (read, check, guarded write) again while it meets a stale
 * read; after ATTEMPTS, 409. Writes that check what they read and then
 * write it back with a guard need no lock across their round trips.
 */
export async function retryOnStaleRead<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StaleReadError)) throw error;
      if (tries === ATTEMPTS) throw new ConflictException(`${error.message}; retry the request`);
    }
  }
}
