import { Inject, Injectable, LoggerService } from '@nestjs/common';
import { format } from 'node:util';
import type { Level, Logger as Pino } from 'pino';

/** The process's one pino instance (JSON lines on stdout, at LOG_LEVEL). */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * Nest's logger, writing through pino. Nest's `Logger` passes the context
 * (the class name) last; an object first becomes the line's fields (an Error
 * its `err`), so `logger.error({ err, requestId }, 'message')` logs both.
 */
@Injectable()
export class AppLogger implements LoggerService {
  constructor(@Inject(ROOT_LOGGER) private readonly pino: Pino) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    this.write('info', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.write('error', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('trace', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  private write(level: Level, message: unknown, optionalParams: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    const params = optionalParams.slice(0, -1);
    if (optionalParams.length > 0) {
      fields.context = optionalParams[optionalParams.length - 1];
    }
    if (message instanceof Error) {
      fields.err = message;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
    } else if (level === 'error' && params.length === 1 && typeof params[0] === 'string' && params[0].includes('\n')) {
      // Nest's own exception handlers call error(message, stack, context).
      const err = new Error(String(message));
      err.stack = params[0];
      this.pino.error({ ...fields, err });
      return;
    } else {
      params.unshift(message);
    }
    const [text, ...rest] = params;
    this.pino[level](fields, text === undefined || typeof text === 'string' ? text : format(text), ...rest);
  }
}
