import pino from 'pino';
import { Writable } from 'node:stream';
import { AppLogger } from './app-logger';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: new AppLogger(pino({ level }, stream)), lines };
}

describe('AppLogger', () => {
  it('writes Nest messages with their context', () => {
    const { logger, lines } = capture();
    logger.log('listening on http://localhost:3000', 'Bootstrap');
    expect(lines).toEqual([expect.objectContaining({ level: 30, msg: 'listening on http://localhost:3000', context: 'Bootstrap' })]);
  });

  it('turns a leading object into fields and serialises its error', () => {
    const { logger, lines } = capture();
    logger.error({ err: new Error('boom'), requestId: 'r-1' }, 'GET /x failed', 'HttpErrorFilter');
    expect(lines[0]).toMatchObject({ level: 50, msg: 'GET /x failed', context: 'HttpErrorFilter', requestId: 'r-1', err: { message: 'boom' } });
    expect((lines[0].err as { stack: string }).stack).toContain('Error: boom');
  });

  it("keeps the stack of Nest's own error(message, stack, context) calls", () => {
    const { logger, lines } = capture();
    logger.error('Unhandled', 'Error: Unhandled\n    at somewhere', 'ExceptionsHandler');
    expect(lines[0]).toMatchObject({ level: 50, context: 'ExceptionsHandler', err: { message: 'Unhandled', stack: 'Error: Unhandled\n    at somewhere' } });
  });

  it('logs an Error given alone as err, and writes nothing below the level', () => {
    const { logger, lines } = capture('warn');
    logger.log('not written', 'Ctx');
    logger.debug('not written either');
    logger.warn(new Error('careful'), 'Ctx');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, context: 'Ctx', err: { message: 'careful' } });
  });
});
