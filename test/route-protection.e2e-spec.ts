import { Controller, Get, Module, Post, Type } from '@nestjs/common';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { OpenAPIObject } from '@nestjs/swagger';
import { AppExtension } from '../src/app.module';
import { Access, accessOf } from '../src/auth/authenticated.decorator';
import { routesOf } from '../src/common/http/route-table';
import { BOOKMARKS_EXTENSION } from './example-extension/bookmarks.module';
import { TestApp } from './support/test-app';

/** A feature whose author forgot every auth decorator: the default must protect it anyway. */
@Controller('forgotten')
class ForgottenController {
  @Post()
  write(): object {
    return { written: true };
  }

  @Get(':id')
  read(): object {
    return { read: true };
  }
}

@Module({ controllers: [ForgottenController] })
class ForgottenModule {}

const FORGOTTEN_EXTENSION: AppExtension = { module: ForgottenModule };

interface Route {
  method: string;
  /** Nest's path, `:param` and all. */
  path: string;
  access: Access;
}

/** Every route the app registered, read from Nest's own metadata (so a new route is here without anyone listing it). */
function registeredRoutes(t: TestApp): Route[] {
  const reflector = t.app.get(Reflector);
  const controllers = [...t.app.get(ModulesContainer).values()].flatMap((module) => [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type));
  return routesOf(controllers).map(({ method, path, controller, handler }) => ({ method, path, access: accessOf(reflector, handler, controller) }));
}

const concrete = (path: string) => path.replace(/:\w+/g, 'x');
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const name = (route: Route) => `${route.method} ${route.path}`;

/** The routes that take no token, or an optional one (docs/api-rules.md §6, §9: public reads, signed URLs, the CLI's publish, the frontend's lookups). */
const ANONYMOUS = [
  'GET /health',
  'GET /health/ready',
  'GET /nodes',
  'GET /nodes/search',
  'GET /nodes/:nodeId',
  'GET /nodes/:nodeId/versions',
  'GET /nodes/:nodeId/versions/:versionId',
  'GET /nodes/:nodeId/install',
  'GET /nodes/:nodeId/versions/:version/comfy-nodes',
  'GET /comfy-nodes/:comfyNodeName/node',
  'POST /bulk/nodes/versions',
  'GET /publishers/:publisherId/nodes',
  'GET /archives/:sha256.zip',
  'PUT /uploads/:versionId',
  'POST /proxy/video/callbacks/upstream',
  // A signed link (a <video> tag sends no token), or the owner's or an admin's token.
  'GET /proxy/video/results/:sha256',
  'GET /publishers/:publisherId',
  'POST /publishers/:publisherId/nodes/:nodeId/versions',
  // No user token: METRICS_TOKEN, checked by the route's own guard (test/metrics.e2e-spec.ts).
  'GET /metrics',
];

/** Public routes whose credential is one of their own, documented as its security scheme. */
const OWN_CREDENTIAL: Record<string, object[]> = { 'GET /metrics': [{ metrics: [] }] };

describe('Every route needs a bearer token unless it is marked otherwise', () => {
  let t: TestApp;
  let routes: Route[];

  beforeAll(async () => {
    t = await TestApp.start({ METRICS_TOKEN: 'route-protection-metrics-token' }, { extensions: [BOOKMARKS_EXTENSION, FORGOTTEN_EXTENSION] });
    routes = registeredRoutes(t);
  });
  afterAll(() => t.close());

  it('finds the routes from Nest’s metadata, an extension’s and an undecorated controller’s included', () => {
    expect(routes.map(name)).toEqual(
      expect.arrayContaining(['POST /publishers', 'PUT /nodes/:nodeId/bookmark', 'POST /forgotten', 'GET /forgotten/:id', ...ANONYMOUS]),
    );
  });

  it('only the contract’s anonymous routes are public or token-optional', () => {
    expect(routes.filter((route) => ['public', 'reader', 'optional'].includes(route.access)).map(name).sort()).toEqual([...ANONYMOUS].sort());
  });

  it('every other route answers 401 with WWW-Authenticate: Bearer without a token', async () => {
    const protectedRoutes = routes.filter((route) => route.access === 'token' || route.access === 'admin');
    expect(protectedRoutes.length).toBeGreaterThan(15);
    const answers = [];
    for (const route of protectedRoutes) {
      const res = await t.http[route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](concrete(route.path));
      answers.push([name(route), res.status, res.headers['www-authenticate']]);
    }
    expect(answers).toEqual(protectedRoutes.map((route) => [name(route), 401, 'Bearer']));
  });

  it('the OpenAPI document shows the bearer requirement and the 401 on every protected route, and none on public ones', async () => {
    const doc = (await t.http.get('/docs-json').expect(200)).body as OpenAPIObject;
    for (const route of routes) {
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase() as 'get'];
      expect([name(route), operation !== undefined]).toEqual([name(route), true]);
      const security = {
        // A public route may still document a 401 of its own (the upstream callback's signature).
        public: OWN_CREDENTIAL[name(route)],
        optional: [{ bearer: [] }, {}],
        reader: [{ bearer: [] }, {}],
        token: [{ bearer: [] }],
        admin: [{ bearer: [] }],
      }[route.access];
      expect([name(route), operation?.security]).toEqual([name(route), security]);
      // A public read never answers 401: an invalid token is ignored there.
      if (route.access !== 'public' && route.access !== 'reader') expect([name(route), operation?.responses['401']]).toEqual([name(route), expect.anything()]);
      expect(operation).not.toHaveProperty(['x-public-operation']);
      // Every route but health and metrics is rate limited; every route taking JSON reads it with its limits.
      const limited = !route.path.startsWith('/health') && route.path !== '/metrics';
      expect([name(route), operation?.responses['429'] !== undefined]).toEqual([name(route), limited]);
      expect(operation).not.toHaveProperty(['x-unlimited-operation']);
      const json = operation?.requestBody && 'content' in operation.requestBody && 'application/json' in operation.requestBody.content;
      if (json) expect([name(route), operation?.responses['413'], operation?.responses['415']]).toEqual([name(route), expect.anything(), expect.anything()]);
    }
    expect(doc.components?.securitySchemes?.bearer).toMatchObject({ scheme: 'bearer', bearerFormat: 'opaque' });
  });
});

describe('The default protection and rate limiting', () => {
  it('throttles an anonymous flood on a protected route (the rate limit runs before the access check)', async () => {
    const t = await TestApp.start({ THROTTLE_LIMIT: '3', THROTTLE_TTL_S: '60' });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await t.http.get('/users/me')).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await t.close();
    }
  });
});
