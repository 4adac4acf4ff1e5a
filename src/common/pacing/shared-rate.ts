import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** Reads run ahead of the shared rate this long before one waits, so pacing is not a timer per chunk. */
const SLACK_MS = 50;

/**
 * One timeline for every reader of a kind of work (the rest of refused
 * bodies, background downloads): each chunk read books its time at the
 * shared rate, and a reader that is too far ahead waits until its booking is
 * due. However many readers there are, together they read no faster than
 * the rate, so that work leaves the event loop to requests.
 */
export class SharedRate {
  private freeAt = 0;

  constructor(private readonly bytesPerSecond: number) {}

  /** Books `bytes` just read; the ms to wait before reading on (0: read on). */
  book(bytes: number, now = performance.now()): number {
    this.freeAt = Math.max(this.freeAt, now) + (bytes * 1000) / this.bytesPerSecond;
    const ahead = this.freeAt - now;
    return ahead > SLACK_MS ? ahead : 0;
  }

  /** `source`'s chunks at this rate: back-pressure slows the source meanwhile (a socket: its sender). */
  async *pace(source: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      const wait = this.book(chunk.length);
      if (wait > 0) await sleep(wait, undefined, { ref: false });
      yield chunk;
    }
  }
}
