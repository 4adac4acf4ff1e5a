import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { OperationObject, PathItemObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { BEARER_SCHEME, PUBLIC_OPERATION } from '../../auth/authenticated.decorator';
import { appConfig, AppConfig } from '../../config/config.module';
import { METRICS_SCHEME } from '../../metrics/metrics.controller';
import { ErrorResponseDto } from '../errors/error-response.dto';
import { UNLIMITED_OPERATION } from '../http/rate-limit.module';
import { errorResponseObject } from './api-errors.decorator';

const OPERATION_KEYS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type MarkedOperation = OperationObject & { [PUBLIC_OPERATION]?: boolean; [UNLIMITED_OPERATION]?: boolean };

/**
 * Documents what global enhancers do to every route, so the document cannot
 * forget one: the AccessGuard's default (an operation that declares no
 * security and is not marked @Public() needs the bearer token: the bearer
 * requirement and 401), the rate limit's 429 (but where @SkipRateLimit()),
 * the 400 any route gives what it cannot take, and the JSON body reader's
 * 413 and 415 on an operation that takes a JSON body. The marks are removed, since they are only notes from the
 * decorators to this step.
 */
function documentGlobalBehaviour(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values<PathItemObject>(document.paths)) {
    for (const key of OPERATION_KEYS) {
      const operation: MarkedOperation | undefined = path[key];
      if (!operation) continue;
      if (operation[PUBLIC_OPERATION]) {
        delete operation[PUBLIC_OPERATION];
      } else if (!operation.security) {
        operation.security = [{ [BEARER_SCHEME]: [] }];
        operation.responses['401'] ??= errorResponseObject(401);
      }
      if (operation[UNLIMITED_OPERATION]) delete operation[UNLIMITED_OPERATION];
      else operation.responses['429'] ??= errorResponseObject(429);
      // Any route refuses what it cannot take (a body on one that takes none, a malformed header).
      operation.responses['400'] ??= errorResponseObject(400);
      const body = operation.requestBody;
      if (body && 'content' in body && 'application/json' in body.content) {
        operation.responses['413'] ??= errorResponseObject(413);
        operation.responses['415'] ??= errorResponseObject(415);
      }
    }
  }
  return document;
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Node registry and video proxy')
    .setDescription(
      'A registry of installable nodes owned by publishers, with star reviews, and a proxy that creates ' +
        'reference-to-video tasks on an upstream video model for credits. Every error reply has the body ' +
        '`{statusCode, error, message, requestId}`; every reply carries `X-Request-Id`.',
    )
    .setVersion('1.0')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'A personal access token (`npm run cli -- token create`).' },
      BEARER_SCHEME,
    )
  // GET /metrics and its token exist only with METRICS_TOKEN (MetricsModule).
  if (app.get<AppConfig>(appConfig.KEY).METRICS_TOKEN !== undefined) {
    builder.addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: '`METRICS_TOKEN`, for `GET /metrics` only.' }, METRICS_SCHEME);
  }
  return documentGlobalBehaviour(SwaggerModule.createDocument(app, builder.build(), { extraModels: [ErrorResponseDto] }));
}

/**
 * Swagger UI at /docs and the OpenAPI JSON at /docs-json. The document is
 * built on the first request for it (SwaggerModule caches it), not at
 * startup, where scanning every route took 4–7% of a cold start. Once per
 * process: @nestjs/swagger's second build of a document orders an enum
 * property's keys differently, so it would not match openapi.json as text.
 */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
