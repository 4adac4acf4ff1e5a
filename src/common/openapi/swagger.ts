import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { HeaderObject, OperationObject, ParameterObject, PathItemObject, RequestBodyObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { STATUS_CODES } from 'node:http';
import { BEARER_SCHEME, PUBLIC_OPERATION } from '../../auth/authenticated.decorator';
import { appConfig, AppConfig } from '../../config/config.module';
import { METRICS_SCHEME } from '../../metrics/metrics.controller';
import { ErrorResponseDto } from '../errors/error-response.dto';
import { NEVER_CACHED_OPERATION } from '../http/http-caching';
import { UNLIMITED_OPERATION } from '../http/rate-limit.module';
import { errorResponseObject } from './api-errors.decorator';

const OPERATION_KEYS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type MarkedOperation = OperationObject & { [PUBLIC_OPERATION]?: boolean; [UNLIMITED_OPERATION]?: boolean; [NEVER_CACHED_OPERATION]?: boolean };

const BEARER_401 = errorResponseObject(401);

/** The headers replies carry, declared once in `components.headers`. */
const HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': { description: 'The request\'s id: a valid incoming `X-Request-Id`, else a new UUID (also in the log and in error bodies)', schema: { type: 'string' } },
  'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds until the request may succeed', schema: { type: 'integer' } },
  ETag: { description: 'The reply\'s tag, for a later `If-None-Match`', schema: { type: 'string' } },
};

const NOT_MODIFIED_DESCRIPTION = 'Not modified: the ETag in If-None-Match still matches.';

/** The request header a GET that may answer 304 takes. */
const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag of an earlier reply: 304 without a body when the reply would be the same.',
  schema: { type: 'string' },
};

/** What the replies of a status carry beside X-Request-Id, whichever route gives them. */
const REPLY_HEADERS: Record<string, string[]> = { '401': ['WWW-Authenticate'], '429': ['Retry-After'] };

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Documents what global enhancers do to every route, so the document cannot
 * forget one: who may call it, what any route refuses, 304s, and what may
 * be left out (each below). Replies without a description get the status's
 * reason phrase; every reply documents its `X-Request-Id`, and those of a
 * 401 or a 429 their `WWW-Authenticate` or `Retry-After`. The marks are removed, since they are only notes
 * from the decorators to this step.
 */
function documentGlobalBehaviour(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values<PathItemObject>(document.paths)) {
    for (const key of OPERATION_KEYS) {
      const operation: MarkedOperation | undefined = path[key];
      if (!operation) continue;
      const body = operation.requestBody && 'content' in operation.requestBody ? operation.requestBody : undefined;
      const jsonBody = body && jsonSchemaOf(document, body);
      documentAccess(operation);
      documentRefusals(operation, key, body === undefined || jsonBody !== undefined);
      documentDefaults(operation, body, jsonBody);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || !('description' in response)) continue;
        if (response.description === '') response.description = STATUS_CODES[status] ?? '';
        const named = [...(REPLY_HEADERS[status] ?? []), 'X-Request-Id'];
        response.headers = { ...response.headers, ...Object.fromEntries(named.map((name) => [name, headerRef(name)])) };
      }
    }
  }
  document.components = { ...document.components, headers: { ...document.components?.headers, ...HEADERS } };
  return document;
}

/**
 * The AccessGuard's rules: an operation that declares no security and is
 * not @Public() needs the bearer token (the requirement and 401). A
 * @Public() one needs none, whatever its controller declares: it loses the
 * bearer requirement and the bearer 401 a controller's @Authenticated()
 * gave it, but keeps a credential and a 401 of its own (GET /metrics' token,
 * the upstream callback's signature). Whether it is @Public(), the route's
 * own rule decides over its controller's, as in the guard (each access
 * decorator marks it). Other mixes of a controller's rule and a route's are
 * not taken apart here (their requirements and errors add up); no
 * controller has one.
 */
function documentAccess(operation: MarkedOperation): void {
  const { responses } = operation;
  const isPublic = operation[PUBLIC_OPERATION] === true;
  delete operation[PUBLIC_OPERATION];
  if (isPublic) {
    const ownSecurity = operation.security?.filter((requirement) => !(BEARER_SCHEME in requirement));
    if (ownSecurity?.length) operation.security = ownSecurity;
    else delete operation.security;
    const unauthorized = responses['401'];
    if (unauthorized && 'description' in unauthorized && unauthorized.description === BEARER_401.description) delete responses['401'];
  } else if (!operation.security) {
    operation.security = [{ [BEARER_SCHEME]: [] }];
    responses['401'] ??= errorResponseObject(401);
  }
}

/**
 * What any route refuses: too many requests (429, but where
 * @SkipRateLimit()), a request not received within REQUEST_TIMEOUT_MS (408),
 * what it cannot take (400: a body on a route that takes none, a malformed
 * header). Where the JSON body reader reads the body (`readsJson`: every
 * route but those taking an archive, which document their own refusals), a
 * body too large or not JSON (413, 415). And Express's ETag: a GET answers a
 * matching If-None-Match with 304, but where @NeverCached() (documentRevalidation).
 */
function documentRefusals(operation: MarkedOperation, method: (typeof OPERATION_KEYS)[number], readsJson: boolean): void {
  const { responses } = operation;
  if (operation[UNLIMITED_OPERATION]) delete operation[UNLIMITED_OPERATION];
  else responses['429'] ??= errorResponseObject(429);
  for (const status of readsJson ? [400, 408, 413, 415] : [400, 408]) responses[status] ??= errorResponseObject(status);
  if (operation[NEVER_CACHED_OPERATION]) delete operation[NEVER_CACHED_OPERATION];
  else if (method === 'get') documentRevalidation(operation);
}

/** A GET's 304: the If-None-Match it compares, and the ETag its 200 gives to compare (unless the route documents its own). */
function documentRevalidation(operation: OperationObject): void {
  const { responses } = operation;
  responses['304'] ??= { description: NOT_MODIFIED_DESCRIPTION };
  const parameters = (operation.parameters ??= []);
  if (!parameters.some((parameter) => 'name' in parameter && parameter.name === IF_NONE_MATCH.name)) parameters.push({ ...IF_NONE_MATCH });
  const ok = responses['200'];
  if (ok && 'description' in ok) ok.headers = { ETag: headerRef('ETag'), ...ok.headers };
}

/**
 * The validation pipe's defaults: a query parameter with a default, and a
 * JSON body of fields none of which is required (an empty body counts as
 * `{}`), may be left out.
 */
function documentDefaults(operation: OperationObject, body: RequestBodyObject | undefined, jsonBody: SchemaObject | undefined): void {
  for (const parameter of operation.parameters ?? []) {
    if ('in' in parameter && parameter.in === 'query' && parameter.schema && 'default' in parameter.schema) parameter.required = false;
  }
  if (body && jsonBody?.properties && !jsonBody.required?.length) body.required = false;
}

/** The JSON schema of a request body, its reference resolved; undefined for a body that is not JSON. */
function jsonSchemaOf(document: OpenAPIObject, body: RequestBodyObject): SchemaObject | undefined {
  const schema = body.content['application/json']?.schema;
  if (!schema || !('$ref' in schema)) return schema;
  const found = document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')];
  return found && !('$ref' in found) ? found : undefined;
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
