import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { BEARER_SCHEME } from '../../auth/authenticated.decorator';
import { ErrorResponseDto } from '../errors/error-response.dto';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Node registry and video proxy')
    .setDescription(
      'A registry of installable nodes owned by publishers, with star reviews, and a proxy that creates ' +
        'reference-to-video tasks on an upstream video model for credits. Every error reply has the body ' +
        '`{statusCode, error, message, requestId}`; every reply carries `X-Request-Id`.',
    )
    .setVersion('1.0')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'A personal access token (`npm run cli -- token create`).' },
      BEARER_SCHEME,
    )
    .build();
  return SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponseDto] });
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
