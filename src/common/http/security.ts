import { INestApplication } from '@nestjs/common';
import cors from 'cors';
import helmet from 'helmet';
import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { AppConfig } from '../../config/config.module';
import { answerClientErrorsInErrorShape } from './client-errors';
import { handleExpectations } from './expect-continue';
import { drainRefusedBodies, REFUSED_BODY_DRAIN } from './refused-body-drain';
import { paceRefusedConnections } from './refused-connection-pacing';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * What a helmet middleware does to every reply, recorded once and replayed.
 * With static options (no per-request directive functions, no nonces) helmet
 * sets the same headers on every reply, so one pass over a list replaces its
 * dozen chained middleware per request (a measurable share of a cheap
 * request's CPU). Throws at startup if helmet ever stops being synchronous
 * and static, rather than silently dropping headers.
 */
export function replayHelmet(middleware: Middleware): Middleware {
  const headers: [string, string][] = [];
  const removed: string[] = [];
  let outcome: unknown = 'unfinished';
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    removeHeader: (name: string) => removed.push(name),
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error) => (outcome = error));
  if (outcome !== undefined) throw new Error('helmet did not finish synchronously without error; its headers cannot be recorded');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** The JSON API: nothing on a reply may load or run anything. */
const apiHeaders = replayHelmet(helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } }));

/**
 * Swagger UI loads its own scripts (Nest serves even the init script as a
 * file, so no inline script is allowed) and needs inline styles and data: images.
 */
const docsHeaders = replayHelmet(
  helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        // Swagger UI is often served over plain http (localhost); upgrading its asset requests would break it.
        upgradeInsecureRequests: null,
      },
    },
  }),
);

const securityHeaders: Middleware = (req, res, next) =>
  ((req.url ?? '').startsWith('/docs') ? docsHeaders : apiHeaders)(req, res, next);

/**
 * The pause of a connection after a refusal, security headers (helmet),
 * CORS for the configured origins, how long a client may take to send a
 * request, the answer to a request Node's parser refuses, when a client
 * waiting for a 100 Continue gets it, and how much of a body already
 * answered is read. Applied before Swagger's routes and Nest's middleware
 * (only the request id comes first), so every reply is covered, errors
 * included.
 * CORS is the `cors` middleware on both HTTP adapters (what Express's
 * enableCors uses), so preflights and allowed methods do not depend on the
 * adapter.
 */
export function applySecurity(app: INestApplication, config: AppConfig): void {
  app.use(paceRefusedConnections(config.trustProxy));
  app.use(securityHeaders);
  if (config.CORS_ORIGINS) {
    app.use(
      cors({
        origin: config.CORS_ORIGINS === '*' ? '*' : config.CORS_ORIGINS.split(',').map((origin) => origin.trim()),
        methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'],
        allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
        exposedHeaders: ['X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'Allow'],
        maxAge: 600,
      }),
    );
  }
  const server = app.getHttpServer() as Server;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(config.REQUEST_TIMEOUT_MS, 60_000);
  answerClientErrorsInErrorShape(server);
  handleExpectations(server);
  drainRefusedBodies(server, { ...REFUSED_BODY_DRAIN, maxMs: config.REQUEST_TIMEOUT_MS });
}
