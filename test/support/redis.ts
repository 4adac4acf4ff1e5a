import Redis from 'ioredis';
import { once } from 'node:events';
import { AddressInfo, createServer, Server, Socket, connect } from 'node:net';

/**
 * TEST_REDIS_URL plus the database number a suite keeps to itself (suites
 * running at once must not share rate-limit windows). Null when no Redis is
 * given: those suites are skipped (`npm test` needs no Redis).
 */
export function testRedisUrl(database: number): string | null {
  const base = process.env.TEST_REDIS_URL;
  if (!base) return null;
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Empties the suite's database (rate-limit windows) when it is done. */
export async function flushRedis(url: string): Promise<void> {
  const client = new Redis(url);
  try {
    await client.flushdb();
  } finally {
    client.disconnect();
  }
}

/**
 * A TCP relay in front of the real Redis that can be taken away and brought
 * back: what an instance sees when Redis goes down (connections reset, new
 * ones refused) or hangs (nothing answers), without stopping the Redis other
 * suites use.
 */
export class VanishingRedis {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private hung = false;

  private constructor(
    private readonly target: URL,
    readonly port: number,
  ) {}

  static async start(targetUrl: string): Promise<VanishingRedis> {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    const relay = new VanishingRedis(new URL(targetUrl), port);
    await relay.up();
    return relay;
  }

  /** REDIS_URL for the instance under test: this relay, the target's database. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}${this.target.pathname}`;
  }

  async up(): Promise<void> {
    if (this.hung) {
      // What was sent meanwhile is lost: its connections end, as a partition's do once it heals.
      this.hung = false;
      for (const socket of this.sockets) socket.destroy();
      return;
    }
    // Half-open allowed: a hung Redis does not close its side when the instance closes its own.
    this.server = createServer({ allowHalfOpen: true }, (client) => {
      const upstream = connect({ port: Number(this.target.port || 6379), host: this.target.hostname, allowHalfOpen: true });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      for (const [from, to] of [[client, upstream], [upstream, client]]) {
        from.on('data', (data: Buffer) => this.hung || to.write(data));
        from.on('end', () => this.hung || to.end());
      }
    });
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
  }

  /** Redis stops answering but its connections stay open, new ones too: a partition, or a stalled server. */
  hang(): void {
    this.hung = true;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
