// The upstream video API for benchmarks: answers every create after a fixed
// delay (BENCH_UPSTREAM_DELAY_MS). Runs in its own process so it does not
// compete with the load generator.
const { createServer } = require('node:http');
const { randomUUID } = require('node:crypto');

const delay = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 20);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ task_id: randomUUID(), state: 'created', credits: 10, model: 'videoq2-turbo', duration: 2 }));
    }, delay);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.BENCH_UPSTREAM_PORT ?? 0), '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
