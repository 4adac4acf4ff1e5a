// Calibration: the same trivial JSON route on plain node:http, on Express, on
// Nest over Express and on Nest over Fastify, so the benchmark shows what the framework alone costs
// on this machine (the targets assume Express reaches ~0.4 of node:http).
require('reflect-metadata');
const { createServer } = require('node:http');

const kind = process.env.BENCH_CALIBRATION;

async function listen() {
  if (kind === 'node:http') {
    return createServer((req, res) => {
      const json = JSON.stringify({ ok: true });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
      res.end(json);
    }).listen(0, '127.0.0.1');
  }
  if (kind === 'express') {
    const app = require('express')();
    app.get('/', (req, res) => res.json({ ok: true }));
    return createServer(app).listen(0, '127.0.0.1');
  }
  if (kind === 'nest-express' || kind === 'nest-fastify') {
    const { Controller, Get, Module } = require('@nestjs/common');
    const { NestFactory } = require('@nestjs/core');
    class HelloController {
      hello() {
        return { ok: true };
      }
    }
    Reflect.decorate([Get()], HelloController.prototype, 'hello', Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'));
    const controller = Reflect.decorate([Controller()], HelloController);
    const module = Reflect.decorate([Module({ controllers: [controller] })], class HelloModule {});
    const adapter = kind === 'nest-fastify' ? new (require('@nestjs/platform-fastify').FastifyAdapter)() : undefined;
    const app = adapter ? await NestFactory.create(module, adapter, { logger: false }) : await NestFactory.create(module, { logger: false });
    await app.listen(0, '127.0.0.1');
    return app.getHttpServer();
  }
  throw new Error(`unknown BENCH_CALIBRATION ${kind}`);
}

listen().then((server) => {
  const report = () => process.send?.({ port: server.address().port });
  if (server.listening) report();
  else server.once('listening', report);
  process.on('disconnect', () => process.exit(0));
});
