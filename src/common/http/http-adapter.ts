import { INestApplication } from '@nestjs/common';
import { AbstractHttpAdapter } from '@nestjs/core';
import type { FastifyServerOptions } from 'fastify';
import fresh from 'fresh';
import { parse as parseQueryString } from 'node:querystring';
import { HttpAdapterKind } from '../../config/environment';
import { rawErrorReply } from '../errors/http-error.filter';
import { replyEtag } from './http-caching';
import { requestIdOf } from './request-id';
import { ProxyTrust } from './trust-proxy';
import { markUndecodablePath } from './undecodable-path';

/** The methods Fastify would otherwise run its own body parsing for. */
const BODY_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

/** Express allows any path parameter length; so does the Fastify adapter (node's header limit still applies). */
const MAX_PARAM_LENGTH = 16 * 1024;

const FASTIFY_OPTIONS: FastifyServerOptions = {
  // The request id (echoed X-Request-Id or a new UUID) is Fastify's own id too.
  genReqId: (req) => requestIdOf(req),
  routerOptions: {
    // Route matching as Express does it: case-insensitive, a trailing slash ignored.
    caseSensitive: false,
    ignoreTrailingSlash: true,
    maxParamLength: MAX_PARAM_LENGTH,
    // Express's query parser, so the same query string means the same thing (invalid UTF-8 included).
    querystringParser: (query) => parseQueryString(query),
  },
  // Invalid percent-encoding reaches the pipeline (see undecodable-path.ts) instead of the router's own error.
  rewriteUrl: (req) => markUndecodablePath(req),
  // Anything else the router rejects before any hook runs: at least the contract's error body.
  frameworkErrors: (error, request, reply) => {
    const status = error.statusCode ?? 400;
    const { headers, body } = rawErrorReply(status, error.message, request.id);
    reply.raw.writeHead(status, headers).end(body);
  },
};

/**
 * The HTTP layer under Nest. Fastify is the default: its request path costs
 * a fraction of Express's, about 0.5 ms less CPU per write request here (see
 * docs/decisions.md, "Two HTTP adapters"). Express stays available
 * (HTTP_ADAPTER=express). Both run the same modules, middleware, guards,
 * pipes and filter, and the whole e2e suite runs on both.
 * Each adapter is loaded only when chosen. Both get the same compiled
 * TRUST_PROXY function, so `req.ip` means the same on either.
 */
export async function createHttpAdapter(kind: HttpAdapterKind, trustProxy: ProxyTrust): Promise<AbstractHttpAdapter> {
  if (kind === 'express') {
    const { ExpressAdapter } = await import('@nestjs/platform-express');
    const adapter = new ExpressAdapter();
    adapter.disable('x-powered-by');
    // Express's own ETag and 304 handling, with the tag function the Fastify hook below uses too.
    adapter.set('etag', (body: string | Buffer) => replyEtag(body));
    adapter.set('trust proxy', trustProxy);
    return adapter;
  }
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  const adapter = new FastifyAdapter({ ...FASTIFY_OPTIONS, trustProxy });
  // JsonBodyMiddleware has already parsed (or refused) the body with the same
  // rules as on Express; Fastify's own parsers would apply different ones. So
  // to Fastify no method has a body: that skips its content-type stage, whose
  // AsyncResource.bind costs about 5% of a write's CPU on Node 20, and the
  // middleware's result becomes the request's body before validation. It also
  // leaves the stream of a raw-body route (RawBodyRoutes) unread for its handler.
  const fastify = adapter.getInstance();
  for (const method of BODY_METHODS) {
    fastify.addHttpMethod(method, { hasBody: false });
  }
  fastify.addHook('preValidation', (request, _reply, done) => {
    request.body = (request.raw as { body?: unknown }).body;
    done();
  });
  // ETag and 304 as Express does them (res.send): a tag on every 2xx GET/HEAD reply body, and 304
  // when If-None-Match names it, judged by the same `fresh` package.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const cacheable = (request.method === 'GET' || request.method === 'HEAD') && reply.statusCode >= 200 && reply.statusCode < 300;
    if (!cacheable || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
      done(null, payload);
      return;
    }
    // Encoded once, here: the tag's hash, Fastify's Content-Length and the socket then all take the bytes, where a
    // string would be measured and encoded by each (a catalog page of 1,000 is 1.4 MB).
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    const tag = replyEtag(body);
    reply.header('ETag', tag);
    if (fresh(request.headers, { etag: tag })) {
      // No body, and (unlike an empty string) no Content-Length: a 304's may only repeat the 200's.
      // Fastify's own HEAD handling measures the payload, so a HEAD keeps an empty one.
      reply.code(304);
      done(null, request.method === 'HEAD' ? '' : null);
      return;
    }
    done(null, body);
  });
  return adapter;
}

/**
 * Listens on every interface on both adapters, as Node does by default
 * (Fastify's own default is localhost only, unreachable from outside a
 * container): dual-stack `::`, or `0.0.0.0` where the host has no IPv6.
 */
export async function listenOnAllInterfaces(app: INestApplication, port: number): Promise<void> {
  try {
    await app.listen(port, '::');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT') throw error;
    await app.listen(port, '0.0.0.0');
  }
}
