// The upstream video API for benchmarks: answers every create after a fixed
// delay (BENCH_UPSTREAM_DELAY_MS), or after the `bench_delay_ms` a request
// names in its meta_data (which the service forwards as it is), so one
// upstream serves runs at several delays. Runs in its own process so it does
// not compete with the load generator.
const { createServer } = require('node:http');
const { randomUUID } = require('node:crypto');

const defaultDelay = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 20);

function delayOf(body) {
  try {
    const requested = Number(JSON.parse(JSON.parse(body).meta_data ?? '{}').bench_delay_ms);
    return Number.isFinite(requested) ? requested : defaultDelay;
  } catch {
    return defaultDelay;
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ task_id: randomUUID(), state: 'created', credits: 10, model: 'videoq2-turbo', duration: 2 }));
    }, delayOf(Buffer.concat(chunks).toString()));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.BENCH_UPSTREAM_PORT ?? 0), '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
