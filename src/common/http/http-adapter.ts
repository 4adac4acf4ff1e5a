import { AbstractHttpAdapter } from '@nestjs/core';
import type { FastifyServerOptions } from 'fastify';
import { HttpAdapterKind } from '../../config/environment';
import { errorBody } from '../errors/http-error.filter';
import { requestIdOf } from './request-id';

/** Express allows any path parameter length; so does the Fastify adapter (node's header limit still applies). */
const MAX_PARAM_LENGTH = 16 * 1024;

const FASTIFY_OPTIONS: FastifyServerOptions = {
  // The request id (echoed X-Request-Id or a new UUID) is Fastify's own id too.
  genReqId: (req) => requestIdOf(req),
  // Route matching as Express does it: case-insensitive, a trailing slash ignored.
  routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
  // A path Fastify's router rejects before any hook runs (invalid percent-encoding): the contract's error body.
  frameworkErrors: (error, request, reply) => {
    const status = error.statusCode ?? 400;
    reply.raw
      .writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': request.id })
      .end(JSON.stringify(errorBody(status, error.message, request.id)));
  },
};

/**
 * The HTTP layer under Nest. Express is the default; Fastify is opt-in
 * (HTTP_ADAPTER=fastify) because its request path costs a fraction of
 * Express's (see the README's benchmark). Both run the same modules,
 * middleware, guards, pipes and filter, and the whole e2e suite runs on both.
 * Each adapter is loaded only when chosen.
 */
export async function createHttpAdapter(kind: HttpAdapterKind): Promise<AbstractHttpAdapter> {
  if (kind === 'express') {
    const { ExpressAdapter } = await import('@nestjs/platform-express');
    const adapter = new ExpressAdapter();
    adapter.disable('x-powered-by');
    return adapter;
  }
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  const adapter = new FastifyAdapter(FASTIFY_OPTIONS);
  // JsonBodyMiddleware has already parsed (or refused) the body with the same
  // rules as on Express; Fastify's own parsers would apply different ones.
  const fastify = adapter.getInstance();
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => done(null, (request.raw as { body?: unknown }).body));
  return adapter;
}
