import { once } from 'node:events';
import { Agent, createServer, IncomingMessage, request, Server, ServerOptions, ServerResponse } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { closeServer, listenOnLoopback } from '../../../test/support/loopback-server';
import { answerClientErrorsInErrorShape } from './client-errors';
import { MIB } from './json-body-limits';
import { drainRefusedBodies, RefusedBodyDrainLimits } from './refused-body-drain';

const LIMITS: RefusedBodyDrainLimits = { bytesPerSecond: 4 * MIB, maxBytes: 1 * MIB, maxMs: 800 };
/** What the service may read besides the drain: the headers, and a chunk or two buffered before the reply. */
const BEFORE_REPLY = 256 * 1024;

/** Resolves at the first of `events` (events.once would reject on the resets these tests provoke). */
const firstOf = (socket: Socket, events: string[]) => new Promise<void>((resolve) => events.forEach((event) => socket.once(event, () => resolve())));

interface Exchange {
  status: number;
  replyMs: number;
  /** From the reply to the connection's close (by the server), if it closed. */
  closedAfterReplyMs?: number;
  /**
   * The same, counted from the request's start: what lower bounds use, since this client may notice the
   * reply some milliseconds after the server sent it (on a busy machine), which shortens the time after it.
   */
  closedAfterStartMs?: number;
  /** Replies on the connection: 2 when the request sent after the body was answered too. */
  replies: number;
  /** What the server read of the connection, in all. */
  serverBytesRead: number;
}

describe('drainRefusedBodies', () => {
  let server: Server;
  let port: number;
  /** The server's end of the connection that carried the latest POST. */
  let postedOn: Socket;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const refuse = (status: number) => {
        res.statusCode = status;
        res.end('{}');
      };
      if (req.method === 'POST') postedOn = req.socket;
      if (req.url === '/read-some') {
        // As the body reader does: read some of the body, stop, refuse.
        req.once('data', () => {
          req.pause();
          refuse(413);
        });
      } else if (req.url === '/refuse') {
        // As a guard does: refuse before reading.
        refuse(401);
      } else {
        refuse(200);
      }
    });
    drainRefusedBodies(server, LIMITS);
    port = await listenOnLoopback(server);
  });
  afterAll(() => closeServer(server));

  /**
   * POSTs `bodyBytes` (fast, or 1 KiB every 20 ms when `slow`) announced by their Content-Length, then
   * `GET /next` on the same connection; ends when that is answered, when the server closes the
   * connection, or after `waitMs`.
   */
  async function exchange(path: string, bodyBytes: number, { slow = false, waitMs = 5000 } = {}): Promise<Exchange> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const started = Date.now();
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${bodyBytes}\r\n\r\n`);
    let received = '';
    let replyAt = 0;
    let closedAt: number | undefined;
    const replies = () => received.match(/HTTP\/1\.1 /g)?.length ?? 0;
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      replyAt ||= Date.now();
      if (replies() === 2) socket.emit('answered');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => (closedAt = Date.now()));
    const chunk = Buffer.alloc(slow ? 1024 : 64 * 1024, 'a');
    for (let sent = 0; sent < bodyBytes && closedAt === undefined; sent += chunk.length) {
      const piece = chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent));
      if (!socket.write(piece)) await firstOf(socket, ['drain', 'close']);
      if (slow) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (closedAt === undefined) {
      socket.write('GET /next HTTP/1.1\r\nHost: x\r\n\r\n');
      await Promise.race([firstOf(socket, ['close', 'answered']), new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
    }
    const closedByServerAt = closedAt;
    socket.destroy();
    const serverSocket = postedOn;
    if (!serverSocket.destroyed) await once(serverSocket, 'close');
    return {
      status: Number(received.split(' ')[1]),
      replyMs: replyAt - started,
      closedAfterReplyMs: closedByServerAt === undefined ? undefined : closedByServerAt - replyAt,
      closedAfterStartMs: closedByServerAt === undefined ? undefined : closedByServerAt - started,
      replies: replies(),
      serverBytesRead: serverSocket.bytesRead,
    };
  }

  it.each(['/refuse', '/read-some'])('%s: past its byte cap, a body has its connection closed, read at the bounded rate', async (path) => {
    const sent = await exchange(path, 16 * MIB);
    expect(sent.status).toBe(path === '/refuse' ? 401 : 413);
    expect(sent.replies).toBe(1);
    expect(sent.serverBytesRead).toBeLessThan(LIMITS.maxBytes + BEFORE_REPLY);
    // 1 MiB at 4 MiB/s: at least 250 ms, less the 50 ms read ahead; closed by the byte cap, before the time cap.
    expect(sent.closedAfterStartMs).toBeGreaterThanOrEqual(190);
    expect(sent.closedAfterReplyMs).toBeLessThan(LIMITS.maxMs);
  });

  it('a body that ends within the caps leaves its connection usable', async () => {
    const sent = await exchange('/refuse', LIMITS.maxBytes / 2);
    expect(sent.status).toBe(401);
    expect(sent.replies).toBe(2);
    expect(sent.closedAfterReplyMs).toBeUndefined();
  });

  it('leaves nothing behind on a kept-alive connection: twenty refused bodies on one add no listener to it', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = () =>
      new Promise<number>((resolve, reject) => {
        const req = request({ port, host: '127.0.0.1', path: '/refuse', method: 'POST', agent, headers: { 'Content-Length': 1024 } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(Buffer.alloc(1024, 'a'));
      });
    const listeners = () => postedOn.eventNames().reduce((sum, name) => sum + postedOn.listenerCount(name), 0);
    /** Whether the socket comes back to `count` listeners (give or take Node's own) once its drains end. */
    const settlesAt = async (count: number) => {
      for (let i = 0; i < 300 && listeners() > count + 4; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return listeners() <= count + 4;
    };
    try {
      expect(await post()).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const afterOne = listeners();
      for (let i = 0; i < 20; i++) expect(await post()).toBe(401);
      // A drain may wait on the rate earlier tests booked; one left behind per drain would stay 20 more.
      expect(await settlesAt(afterOne)).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('a body still arriving at the time cap has its connection closed then', async () => {
    const sent = await exchange('/refuse', LIMITS.maxBytes / 2, { slow: true });
    expect(sent.status).toBe(401);
    expect(sent.replies).toBe(1);
    expect(sent.closedAfterStartMs).toBeGreaterThanOrEqual(LIMITS.maxMs - 20);
    expect(sent.closedAfterReplyMs).toBeLessThan(LIMITS.maxMs + 3000);
  });
});

describe('drainRefusedBodies on a connection that carries on', () => {
  /** A server whose POST /refuse answers 401 unread and whose other routes answer after 500 ms; what one connection receives. */
  async function conversation(serverOptions: ServerOptions, limits: RefusedBodyDrainLimits, send: (socket: Socket) => void | Promise<void>): Promise<string> {
    const server = createServer(serverOptions, (req, res) => {
      if (req.url === '/refuse') return void res.writeHead(401, { 'Content-Length': '0' }).end();
      setTimeout(() => res.writeHead(200, { 'Content-Length': '2' }).end('ok'), 500);
    });
    answerClientErrorsInErrorShape(server);
    drainRefusedBodies(server, limits);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    socket.on('error', () => undefined);
    try {
      await once(socket, 'connect');
      await send(socket);
      await Promise.race([once(socket, 'close'), new Promise((resolve) => setTimeout(resolve, 2500))]);
      return received;
    } finally {
      socket.destroy();
      server.closeAllConnections();
      server.close();
    }
  }

  it('never closes it once the body has all arrived: the next request on it is answered, past the time cap too', async () => {
    // 8 KiB at 8 KiB/s books a second of the rate; the time cap is 200 ms; the next request takes 500 ms.
    const received = await conversation({}, { bytesPerSecond: 8 * 1024, maxBytes: MIB, maxMs: 200 }, (socket) => {
      socket.write(`POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 8192\r\n\r\n${'a'.repeat(8192)}GET /next HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    expect(received.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps a second refused body on the connection from a stray 408 when the first one’s drain ends late', async () => {
    // 64 KiB/s: the first body's drain pauses and ends after the second request was answered and its drain began.
    const received = await conversation({ requestTimeout: 600, connectionsCheckingInterval: 50 }, { bytesPerSecond: 64 * 1024, maxBytes: MIB, maxMs: 5000 }, async (socket) => {
      socket.write('POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 8192\r\n\r\n');
      await sleep(100);
      socket.write(`${'a'.repeat(8192)}POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`);
      for (let i = 0; i < 30 && !socket.destroyed; i++) {
        socket.write(Buffer.alloc(256, 'a'));
        await sleep(50);
      }
    });
    expect(received.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 401']);
  });

  it('ends a drain the rate paused when the next request arrives on its connection (its body has all arrived)', async () => {
    const server = createServer((req, res) => res.writeHead(401, { 'Content-Length': '0' }).end());
    // 8 KiB/s: each body's first half books half a second, so its drain pauses until the rest is in.
    drainRefusedBodies(server, { bytesPerSecond: 8 * 1024, maxBytes: MIB, maxMs: 60_000 });
    let serverSocket: Socket | undefined;
    server.on('connection', (socket: Socket) => (serverSocket = socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let replies = 0;
    socket.on('data', (data: Buffer) => (replies += data.toString('latin1').match(/HTTP\/1\.1 401/g)?.length ?? 0));
    try {
      await once(socket, 'connect');
      for (let i = 1; i <= 10; i++) {
        socket.write('POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 8192\r\n\r\n');
        while (replies < i) await sleep(5);
        socket.write('a'.repeat(4096));
        await sleep(20);
        socket.write('a'.repeat(4096));
      }
      await sleep(50);
      // Node's own listener, and the last body's drain, paused: not one drain still waiting per request.
      expect(serverSocket?.listenerCount('close')).toBeLessThanOrEqual(2);
    } finally {
      socket.destroy();
      server.closeAllConnections();
      server.close();
    }
  });

  it('answers a malformed request that follows a drained body (its error is its own)', async () => {
    const received = await conversation({}, { bytesPerSecond: 64 * 1024, maxBytes: MIB, maxMs: 5000 }, async (socket) => {
      socket.write('POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 8192\r\n\r\n');
      await sleep(200);
      socket.write('a'.repeat(8192));
      await sleep(60);
      socket.write('GET /x HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    });
    expect(received.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 400']);
  });

  it('drains a body that stalls past Node’s keep-alive timeout, then serves the next request', async () => {
    const received = await conversation({ keepAliveTimeout: 300 }, { bytesPerSecond: 64 * MIB, maxBytes: MIB, maxMs: 5000 }, async (socket) => {
      socket.write(`POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n${'a'.repeat(1000)}`);
      // Past Node's keep-alive timer (300 ms, and the second Node adds to it), armed when the 401 finished.
      await sleep(1800);
      if (!socket.destroyed) socket.write(`${'a'.repeat(1000)}GET /next HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    expect(received.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });

  it('writes nothing more once the reply has gone out when the request timeout ends a drain (no second, 408 reply)', async () => {
    const received = await conversation({ requestTimeout: 300, connectionsCheckingInterval: 50 }, { bytesPerSecond: MIB, maxBytes: MIB, maxMs: 5000 }, async (socket) => {
      socket.write('POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
      for (let i = 0; i < 20 && !socket.destroyed; i++) {
        socket.write(Buffer.alloc(1024, 'a'));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    expect(received.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 401']);
  });
});
