import { Module } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { appConfig, AppConfig } from '../../config/config.module';
import { requestIdOf } from '../http/request-id';

/**
 * JSON logs (pino): one line per request with request id, method, path,
 * status and duration. Request headers are not logged at all, so no token or
 * cookie can leak into the log.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.LOG_LEVEL,
          genReqId: (req: IncomingMessage, res: ServerResponse) => requestIdOf(req, res),
          customProps: (req: IncomingMessage & { id?: unknown }) => ({ requestId: req.id }),
          customAttributeKeys: { responseTime: 'durationMs' },
          serializers: {
            req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
            res: (res: { statusCode: number }) => ({ status: res.statusCode }),
          },
          customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
            error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
        },
      }),
    }),
  ],
})
export class LoggingModule {}
