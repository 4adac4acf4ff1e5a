import { AddressInfo, Server } from 'node:net';
import pino from 'pino';
import { createApp } from './app.factory';
import { AppLogger } from './common/logging/app-logger';
import { appConfig, AppConfig } from './config/config.module';
import { isDatabaseUnavailable } from './database/database-unavailable';

async function bootstrap(): Promise<void> {
  const app = await createApp();
  const port = app.get<AppConfig>(appConfig.KEY).PORT;
  await app.listen(port);
  // The port bound, which PORT=0 leaves to the system.
  const { port: bound } = (app.getHttpServer() as Server).address() as AddressInfo;
  app.get(AppLogger).log(`listening on http://localhost:${bound} (Swagger UI at /docs)`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  // A JSON line like every log, also when the service could not start; written synchronously, before the exit.
  pino(pino.destination({ dest: 1, sync: true })).fatal(isDatabaseUnavailable(error) ? `the database (DATABASE_URL) cannot be reached: ${message}` : message);
  process.exit(1);
});
