import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Level, Logger as Pino } from 'pino';
import { appConfig, AppConfig } from '../../config/config.module';
import { requestIdOf } from '../http/request-id';
import { clientAddress } from '../http/trust-proxy';
import { ROOT_LOGGER } from './app-logger';

type LoggedRequest = IncomingMessage & { originalUrl?: string };

/**
 * One line per request when its reply is done: request id, method, path,
 * client address (through TRUST_PROXY's proxies), status and duration. Never headers, so never a token or a cookie. Lines
 * written while the request runs carry their own identifiers (the error
 * filter adds the request id); there is deliberately no per-request logger
 * context: on Node 20 the AsyncLocalStorage it needs costs about a third of
 * a write request's CPU (see docs/decisions.md).
 */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  constructor(
    @Inject(ROOT_LOGGER) private readonly pino: Pino,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  use(req: LoggedRequest, res: ServerResponse, next: () => void): void {
    const started = performance.now();
    const requestId = requestIdOf(req, res);
    // Read now: once the connection has closed, the socket no longer knows its peer.
    const remoteAddress = clientAddress(req, this.config.trustProxy);
    res.once('close', () => {
      // Closed before the reply was sent: the client went away, and there is no status to report.
      const aborted = !res.writableFinished;
      const status = res.statusCode;
      const level: Level = aborted ? 'warn' : status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!this.pino.isLevelEnabled(level)) return;
      this.pino[level](
        {
          requestId,
          req: {
            method: req.method,
            path: (req.originalUrl ?? req.url ?? '').split('?')[0],
            remoteAddress,
          },
          ...(aborted ? {} : { res: { status } }),
          durationMs: Math.round(performance.now() - started),
        },
        aborted ? 'request aborted' : status >= 500 ? 'request errored' : 'request completed',
      );
    });
    next();
  }
}
