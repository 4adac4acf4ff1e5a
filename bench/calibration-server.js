// Calibration: what the stack alone costs on this machine, beside the service in the same run.
//   - A trivial JSON route on plain node:http, on Express, on Nest over Express and on Nest over
//     Fastify (the targets assume Express reaches ~0.4 of node:http).
//   - The video route's floor: a forwarder that POSTs the request body to BENCH_UPSTREAM_URL and
//     sends the upstream's reply back, doing nothing else (no auth, validation, credits or task
//     rows): on plain node:http, and on the service's own stack (Nest over Fastify, @nestjs/axios
//     with the service's upstream agents from dist/). What these add to the upstream's latency is
//     the least the service can add.
require('reflect-metadata');
const { createServer, request } = require('node:http');

const kind = process.env.BENCH_CALIBRATION;
const upstream = `${process.env.BENCH_UPSTREAM_URL}/ent/v2/reference2video`;
const upstreamHeaders = { Authorization: 'Token bench-key', 'Content-Type': 'application/json' };

function sendJson(res, json) {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

function readJson(stream, then) {
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('end', () => then(JSON.parse(Buffer.concat(chunks).toString())));
}

/** Plain node:http: parse the body, POST it on a keep-alive agent, send the parsed reply back. */
function nodeForwarder() {
  const { upstreamHttpOptions } = require('../dist/src/video-proxy/upstream/upstream-http');
  const { httpAgent } = upstreamHttpOptions();
  return createServer((req, res) =>
    readJson(req, (body) => {
      const json = JSON.stringify(body);
      request(upstream, { method: 'POST', agent: httpAgent, headers: { ...upstreamHeaders, 'Content-Length': Buffer.byteLength(json) } }, (reply) =>
        readJson(reply, (task) => sendJson(res, JSON.stringify(task))),
      ).end(json);
    }),
  );
}

/** A Nest app of one controller method on `path`, its parameters injected as `parameterDecorators` say. */
async function nestApp({ fastify, method, path, handler, parameterDecorators = [], imports = [], inject = [] }) {
  const { Controller, Module } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  class CalibrationController {
    constructor(...dependencies) {
      this.dependencies = dependencies;
    }
    handle(...args) {
      return handler(...this.dependencies, ...args);
    }
  }
  const descriptor = Object.getOwnPropertyDescriptor(CalibrationController.prototype, 'handle');
  Reflect.decorate([method(path)], CalibrationController.prototype, 'handle', descriptor);
  parameterDecorators.forEach((decorator, index) => decorator(CalibrationController.prototype, 'handle', index));
  Reflect.defineMetadata('design:paramtypes', inject, CalibrationController);
  const controller = Reflect.decorate([Controller()], CalibrationController);
  const module = Reflect.decorate([Module({ imports, controllers: [controller] })], class CalibrationModule {});
  const adapter = fastify ? new (require('@nestjs/platform-fastify').FastifyAdapter)() : undefined;
  const app = adapter ? await NestFactory.create(module, adapter, { logger: false }) : await NestFactory.create(module, { logger: false });
  await app.listen(0, '127.0.0.1');
  return app.getHttpServer();
}

async function listen() {
  const { Body, Get, Post } = require('@nestjs/common');
  switch (kind) {
    case 'node:http':
      return createServer((req, res) => sendJson(res, JSON.stringify({ ok: true }))).listen(0, '127.0.0.1');
    case 'express': {
      const app = require('express')();
      app.get('/', (req, res) => res.json({ ok: true }));
      return createServer(app).listen(0, '127.0.0.1');
    }
    case 'nest-express':
    case 'nest-fastify':
      return nestApp({ fastify: kind === 'nest-fastify', method: Get, path: '', handler: () => ({ ok: true }) });
    case 'node:http forwarder':
      return nodeForwarder().listen(0, '127.0.0.1');
    case 'nest-fastify forwarder': {
      const { HttpModule, HttpService } = require('@nestjs/axios');
      const { upstreamHttpOptions } = require('../dist/src/video-proxy/upstream/upstream-http');
      return nestApp({
        fastify: true,
        method: Post,
        path: 'proxy/video/reference2video',
        imports: [HttpModule.registerAsync({ useFactory: upstreamHttpOptions })],
        inject: [HttpService],
        parameterDecorators: [Body()],
        handler: async (http, body) => (await http.axiosRef.post(upstream, body, { headers: upstreamHeaders, maxRedirects: 0 })).data,
      });
    }
    default:
      throw new Error(`unknown BENCH_CALIBRATION ${kind}`);
  }
}

listen().then((server) => {
  const report = () => process.send?.({ port: server.address().port });
  if (server.listening) report();
  else server.once('listening', report);
  process.on('disconnect', () => process.exit(0));
});
