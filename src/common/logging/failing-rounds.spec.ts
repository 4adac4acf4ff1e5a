import { Logger } from '@nestjs/common';
import { FailingRounds } from './failing-rounds';

describe('FailingRounds', () => {
  it('logs the first failure, a reminder a minute while rounds keep failing, and the recovery', () => {
    const logger = new Logger('test');
    const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const notes = jest.spyOn(logger, 'log').mockImplementation(() => undefined);
    let now = 0;
    const rounds = new FailingRounds(logger, 'a round', () => now);
    const outage = new Error('database unreachable');

    // A round every 250 ms for two and a half minutes: 600 failures.
    for (; now < 150_000; now += 250) rounds.failed(outage);
    expect(errors.mock.calls.map(([, message]) => String(message))).toEqual([
      'a round failed; retried at the next',
      'a round still failing: 241 rounds in 60 s',
      'a round still failing: 481 rounds in 120 s',
    ]);
    expect(errors.mock.calls[0][0]).toEqual({ err: outage });

    rounds.succeeded();
    rounds.succeeded();
    expect(notes.mock.calls.map(([message]) => String(message))).toEqual(['a round works again after 600 failed rounds']);

    // A later failure is a new outage, logged at once.
    rounds.failed(outage);
    expect(errors).toHaveBeenCalledTimes(4);
    // One failed round alone: no recovery line.
    rounds.succeeded();
    expect(notes).toHaveBeenCalledTimes(1);
  });
});
