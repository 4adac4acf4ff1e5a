import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppExtension, AppModule } from './app.module';
import { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdOf } from './common/http/request-id';
import { applySecurity } from './common/http/security';
import { setupSwagger } from './common/openapi/swagger';
import { appConfig, AppConfig } from './config/config.module';

export interface CreateAppOptions {
  /** Features mounted beside the built-in modules (see docs/extending.md). */
  extensions?: AppExtension[];
}

/**
 * Builds the application exactly as production runs it; main.ts, the OpenAPI
 * script and the e2e tests all start from here.
 */
export async function createApp(options: CreateAppOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options.extensions), {
    // Bodies are parsed by JsonBodyMiddleware so parser errors get the contract's error body.
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  applySecurity(app, app.get<AppConfig>(appConfig.KEY));
  // Swagger's routes are mounted ahead of Nest's middleware; give them request ids too.
  app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
    requestIdOf(req, res);
    next();
  });
  setupSwagger(app);
  return app;
}
