import { Global, Module } from '@nestjs/common';
import pino from 'pino';
import { appConfig, AppConfig } from '../../config/config.module';
import { AppLogger, ROOT_LOGGER } from './app-logger';
import { RequestLogMiddleware } from './request-log.middleware';

/** JSON logs (pino) at LOG_LEVEL: Nest's logger, and one line per request (RequestLogMiddleware, mounted by createApp). */
@Global()
@Module({
  providers: [
    { provide: ROOT_LOGGER, inject: [appConfig.KEY], useFactory: (config: AppConfig) => pino({ level: config.LOG_LEVEL }) },
    AppLogger,
    RequestLogMiddleware,
  ],
  exports: [AppLogger, RequestLogMiddleware],
})
export class LoggingModule {}
