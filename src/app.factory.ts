import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino from 'pino';
import { IncomingMessage, ServerResponse } from 'node:http';
import { AppExtension, AppModule } from './app.module';
import { createHttpAdapter } from './common/http/http-adapter';
import { RequestLogMiddleware } from './common/logging/request-log.middleware';
import { AppLogger } from './common/logging/app-logger';
import { applyCompression } from './common/http/http-caching';
import { applySecurity } from './common/http/security';
import { setupSwagger } from './common/openapi/swagger';
import { appConfig, AppConfig } from './config/config.module';
import { validateEnvironment } from './config/environment';

export interface CreateAppOptions {
  /** Features mounted beside the built-in modules (see docs/extending.md). */
  extensions?: AppExtension[];
}

/**
 * Builds and initialises the application exactly as production runs it;
 * main.ts, the OpenAPI script and the e2e tests all start from here.
 */
export async function createApp(options: CreateAppOptions = {}): Promise<INestApplication> {
  // The adapter and the set of modules are fixed before Nest starts, so TRUST_PROXY and METRICS_TOKEN are read
  // here (validated the same way as all configuration).
  const environment = validateEnvironment(process.env);
  const adapter = createHttpAdapter(environment.trustProxy);
  const modules = AppModule.forRoot(options.extensions ?? [], { metrics: environment.METRICS_TOKEN !== undefined });
  const app = await NestFactory.create(modules, adapter, {
    // Bodies are read after authentication, with limits enforced as they stream in (see RequestInputInterceptor).
    bodyParser: false,
    // JSON lines from the start: a module that fails to start (a bad setting) is logged as everything else is.
    // Synchronous: a failing start exits right after its last line.
    logger: new AppLogger(pino({ level: environment.LOG_LEVEL }, pino.destination({ dest: 1, sync: true }))),
    abortOnError: false,
  });
  app.useLogger(app.get(AppLogger));
  app.enableShutdownHooks();
  // First of all middleware: every request is logged and its reply carries X-Request-Id, CORS preflights and
  // Swagger's routes (mounted ahead of Nest's middleware) included.
  const requestLog = app.get(RequestLogMiddleware);
  app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => requestLog.use(req, res, next));
  applySecurity(app, app.get<AppConfig>(appConfig.KEY));
  applyCompression(app);
  setupSwagger(app);
  await app.init();
  return app;
}
