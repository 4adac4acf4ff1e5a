// Calibration: what the stack alone costs on this machine, beside the service in the same run.
//   - A trivial JSON route on plain node:http, on Express and on Nest over Express (the issue's
//     targets assume Express reaches ~0.4 of node:http).
//   - The video route's floor: a forwarder that POSTs the request body to BENCH_UPSTREAM_URL and
//     sends the upstream's reply back, doing nothing else (no auth, validation, credits or task
//     rows): on plain node:http, and on the service's own stack (Nest over Express, @nestjs/axios
//     with the service's upstream agents and per-call options, from dist/). What these add to the
//     upstream's latency is about the least the service can add.
require('reflect-metadata');
const { createServer, request } = require('node:http');

const kind = process.env.BENCH_CALIBRATION;
const UPSTREAM_KEY = 'bench-key';

function sendJson(res, status, json) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

function readJson(stream, then) {
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('end', () => then(JSON.parse(Buffer.concat(chunks).toString())));
}

/** Where a forwarder sends creates, and the service's agents for it (dist/ is built by bench/run.js). */
function upstream() {
  if (!process.env.BENCH_UPSTREAM_URL) throw new Error('a forwarder needs BENCH_UPSTREAM_URL');
  const { upstreamHttpOptions, upstreamRequestOptions } = require('../dist/src/video-proxy/upstream/upstream-http');
  return { url: `${process.env.BENCH_UPSTREAM_URL}/ent/v2/reference2video`, ...upstreamHttpOptions(), upstreamRequestOptions };
}

/** Plain node:http: parse the body, POST it on a keep-alive agent, send the parsed reply back with its status. */
function nodeForwarder() {
  const { url, httpAgent } = upstream();
  return createServer((req, res) =>
    readJson(req, (body) => {
      const json = JSON.stringify(body);
      const headers = { Authorization: `Token ${UPSTREAM_KEY}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) };
      request(url, { method: 'POST', agent: httpAgent, headers }, (reply) => readJson(reply, (task) => sendJson(res, reply.statusCode, JSON.stringify(task))))
        .on('error', () => sendJson(res, 502, '{}'))
        .end(json);
    }),
  );
}

/** A Nest app (Nest's default Express adapter) of one controller method, its constructor and handler parameters injected as given. */
async function nestApp({ decorators, parameterDecorators = [], imports = [], inject = [], handler }) {
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
  Reflect.decorate(decorators, CalibrationController.prototype, 'handle', descriptor);
  parameterDecorators.forEach((decorator, index) => decorator(CalibrationController.prototype, 'handle', index));
  Reflect.defineMetadata('design:paramtypes', inject, CalibrationController);
  const controller = Reflect.decorate([Controller()], CalibrationController);
  const module = Reflect.decorate([Module({ imports, controllers: [controller] })], class CalibrationModule {});
  const app = await NestFactory.create(module, { logger: false });
  await app.listen(0, '127.0.0.1');
  return app.getHttpServer();
}

/**
 * Nest over Express and @nestjs/axios, called as VideoUpstreamClient calls it. The body goes through Nest's default
 * JSON parser (body-parser), not the service's streaming limits: a floor, not the service's own reading.
 */
function nestForwarder() {
  const { Body, HttpCode, Post } = require('@nestjs/common');
  const { HttpModule, HttpService } = require('@nestjs/axios');
  const { url, httpAgent, httpsAgent, upstreamRequestOptions } = upstream();
  return nestApp({
    decorators: [Post('proxy/video/reference2video'), HttpCode(200)],
    parameterDecorators: [Body()],
    imports: [HttpModule.register({ httpAgent, httpsAgent })],
    inject: [HttpService],
    handler: async (http, body) => (await http.axiosRef.post(url, body, upstreamRequestOptions(UPSTREAM_KEY, 30_000))).data,
  });
}

async function listen() {
  switch (kind) {
    case 'node:http':
      return createServer((req, res) => sendJson(res, 200, JSON.stringify({ ok: true }))).listen(0, '127.0.0.1');
    case 'express': {
      const app = require('express')();
      app.get('/', (req, res) => res.json({ ok: true }));
      return createServer(app).listen(0, '127.0.0.1');
    }
    case 'nest-express':
      return nestApp({ decorators: [require('@nestjs/common').Get()], handler: () => ({ ok: true }) });
    case 'node:http forwarder':
      return nodeForwarder().listen(0, '127.0.0.1');
    case 'nest-express forwarder':
      return nestForwarder();
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
