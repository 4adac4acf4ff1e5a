import { once } from 'node:events';
import { AddressInfo, createServer, Server, Socket, connect } from 'node:net';

/** The port a URL's protocol uses when it names none. */
const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'postgres:': 5432, 'postgresql:': 5432 };

/**
 * A TCP relay in front of a real server (Redis, PostgreSQL) that can be taken
 * away and brought back: what an instance sees when that server goes down
 * (connections reset, new ones refused) or hangs (nothing answers), without
 * stopping the server other suites use.
 */
export class TcpRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private hung = false;

  private constructor(
    private readonly target: URL,
    readonly port: number,
  ) {}

  static async start(targetUrl: string): Promise<TcpRelay> {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    const relay = new TcpRelay(new URL(targetUrl), port);
    await relay.up();
    return relay;
  }

  /** The target's URL (its credentials, database, options) through this relay. */
  get url(): string {
    const url = new URL(this.target.toString());
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
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
      const upstream = connect({ port: Number(this.target.port || DEFAULT_PORTS[this.target.protocol]), host: this.target.hostname, allowHalfOpen: true });
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
