import { Agent, request } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { Stream } from 'node:stream';
import { TestApp } from './test-app';

/** A supertest parser for binary bodies, which it hands over as a Buffer only when told to: `.buffer(true).parse(asBuffer)`. */
export const asBuffer = (res: Stream, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface AnnouncedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The Content-Length announced. */
  contentLength: number;
  /** What is actually sent of the body (a prefix of it). */
  bodyStart: string;
}

/** The port the app's server listens on (test apps listen from the start). */
function portOf(t: TestApp): number {
  return (t.app.getHttpServer() as { address(): AddressInfo }).address().port;
}

export interface BodyReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** Whether the request went on a connection an earlier request of the same agent used. */
  reusedSocket: boolean;
}

export interface SendOptions {
  /** The connection's agent (e.g. a keep-alive one, to send the next request on the same connection). */
  agent?: Agent;
  /** Resolve only once the body is sent whole too, not as soon as the reply is in. */
  untilSent?: boolean;
}

/**
 * Sends `body` exactly as given (bytes, headers) with Node's own client and
 * parses the JSON reply. Supertest is not used for these: it takes seconds
 * to send a 16 MB buffer, and it cannot send a compressed body as it is.
 */
export async function sendBody(
  t: TestApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  { agent, untilSent = false }: SendOptions = {},
): Promise<BodyReply> {
  const port = portOf(t);
  return new Promise<BodyReply>((resolve, reject) => {
    let reply: BodyReply | undefined;
    let sent = false;
    const settle = () => reply && (sent || !untilSent) && resolve(reply);
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { 'Content-Length': String(body.length), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        reply = { status: res.statusCode ?? 0, headers: res.headers, body: parsed, reusedSocket: req.reusedSocket };
        settle();
      });
    });
    req.on('finish', () => {
      sent = true;
      settle();
    });
    // The server may answer before all of the body is sent: a write that fails after the reply does not change it
    // (unless the body was to be sent whole).
    req.on('error', (error) => (reply && !untilSent ? undefined : reject(error)));
    req.end(body);
  });
}

/** The first whole reply at the start of `received`, with the length it takes there; undefined while it is still arriving. */
function firstReply(received: string): (RawReply & { length: number }) | undefined {
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...headerLines] = received.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const bodyBytes = Number(headers['content-length'] ?? 0);
  const rest = Buffer.from(received.slice(end + 4));
  if (rest.length < bodyBytes) return undefined;
  const body = rest.subarray(0, bodyBytes).toString();
  return { status: Number(statusLine.split(' ')[1]), headers, body, length: end + 4 + Buffer.byteLength(body) };
}

/** The request line and headers (a JSON body announced by its Content-Length, unless `headers` say otherwise). */
function requestHead(method: string, path: string, contentLength: number, headers: Record<string, string>): string {
  const lines = Object.entries({ Host: 'localhost', 'Content-Type': 'application/json', 'Content-Length': String(contentLength), ...headers });
  return `${method} ${path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}

/**
 * Sends the request line and headers, announces `contentLength` bytes of body
 * but sends only `bodyStart`, and reads the reply. A server that waited for
 * the body would never answer: that shows as the socket's idle timeout.
 */
export async function announceBody(t: TestApp, announced: AnnouncedRequest): Promise<RawReply> {
  const port = portOf(t);
  const socket = connect(port, '127.0.0.1');
  socket.setTimeout(5000);
  socket.write(requestHead(announced.method, announced.path, announced.contentLength, announced.headers) + announced.bodyStart);
  let received = '';
  return new Promise<RawReply>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const reply = firstReply(received);
      if (!reply) return;
      socket.destroy();
      resolve({ status: reply.status, headers: reply.headers, body: reply.body });
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new Error(`no reply while the announced body was not sent (got ${JSON.stringify(received)})`));
    });
    socket.on('error', reject);
  });
}

export interface ContinuedReply extends RawReply {
  /** Whether the server sent a 100 Continue (and so the body was sent). */
  continued: boolean;
  /** Whether the server closed the connection after its reply. */
  closed: boolean;
}

/**
 * Sends a request with `Expect: 100-continue` as curl does for large bodies:
 * the head, then the body only once a 100 Continue comes; the final reply.
 */
export async function sendExpectingContinue(t: TestApp, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<ContinuedReply> {
  const port = portOf(t);
  const socket = connect(port, '127.0.0.1');
  socket.setTimeout(5000);
  socket.write(requestHead(method, path, body.length, { ...headers, Expect: '100-continue' }));
  let received = '';
  let continued = false;
  let final: RawReply | undefined;
  return new Promise<ContinuedReply>((resolve, reject) => {
    const settle = (closed: boolean) => {
      socket.destroy();
      if (final) resolve({ ...final, continued, closed });
      else reject(new Error(`no final reply (got ${JSON.stringify(received)})`));
    };
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      let reply = firstReply(received);
      if (reply?.status === 100) {
        continued = true;
        received = received.slice(reply.length);
        socket.write(body);
        reply = firstReply(received);
      }
      if (reply && !final) {
        final = { status: reply.status, headers: reply.headers, body: reply.body };
        // Give the server a moment to close the connection, if it does.
        setTimeout(() => settle(false), 300);
      }
    });
    socket.on('end', () => settle(true));
    socket.on('timeout', () => settle(false));
    socket.on('error', reject);
  });
}

export interface EndlessBodyRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body's first bytes. */
  start: string;
  /** Sent again and again after `start`, for as long as the connection takes it. */
  repeat: string;
}

export interface EndlessBodyOutcome {
  reply: RawReply;
  /** From the first byte sent to the reply's last byte. */
  replyMs: number;
  /** From the reply's last byte to the server closing the connection. */
  closedAfterReplyMs: number;
  /**
   * From the first byte sent to the server closing the connection: what lower bounds use, since this client may
   * notice the reply some milliseconds after the server sent it (on a busy machine), which shortens the time after it.
   */
  closedAfterStartMs: number;
  /** Bytes of body the connection took before the server closed it. */
  bodyBytesSent: number;
}

/** Parses one complete reply (status line, headers, a body of its Content-Length) from the start of `received`. */
function parseReply(received: Buffer): RawReply | undefined {
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...headerLines] = received.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const body = received.subarray(end + 4);
  if (body.length < Number(headers['content-length'] ?? 0)) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
}

/**
 * A client that keeps sending a body the server has already refused: a
 * chunked body that never ends, written as fast as the connection takes it,
 * before and after the reply, until the server closes the connection. Rejects
 * if no reply came by then, or if the connection is still open after `giveUpMs`.
 */
export async function sendEndlessBody(t: TestApp, sent: EndlessBodyRequest, giveUpMs = 60_000): Promise<EndlessBodyOutcome> {
  const port = portOf(t);
  const socket = connect(port, '127.0.0.1');
  const head = Object.entries({ Host: 'localhost', 'Transfer-Encoding': 'chunked', ...sent.headers });
  socket.write(`${sent.method} ${sent.path} HTTP/1.1\r\n${head.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`);
  const chunkOf = (data: string) => Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`);
  const repeated = sent.repeat.repeat(Math.ceil(65_536 / sent.repeat.length));
  const chunk = chunkOf(repeated);
  const started = Date.now();
  let bodyBytesSent = 0;
  let received = Buffer.alloc(0);
  let reply: RawReply | undefined;
  let repliedAt = 0;
  const send = (frame: Buffer, bodyBytes: number): boolean => {
    bodyBytesSent += bodyBytes;
    return socket.write(frame);
  };
  // Until the socket's buffer is full; 'drain' calls it again.
  const pump = () => {
    let more = true;
    while (more && !socket.destroyed) more = send(chunk, Buffer.byteLength(repeated));
  };
  socket.on('drain', pump);
  send(chunkOf(sent.start), Buffer.byteLength(sent.start));
  pump();
  return new Promise<EndlessBodyOutcome>((resolve, reject) => {
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after ${giveUpMs} ms (reply: ${reply?.status ?? 'none'})`));
    }, giveUpMs);
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data]);
      if (reply) return;
      reply = parseReply(received);
      if (reply) repliedAt = Date.now();
    });
    // Writing into a connection the server closed fails: what counts is the reply, which came first.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      if (!reply) return reject(new Error(`the connection closed without a reply (got ${JSON.stringify(received.toString('latin1').slice(0, 200))})`));
      const closedAt = Date.now();
      resolve({ reply, replyMs: repliedAt - started, closedAfterReplyMs: closedAt - repliedAt, closedAfterStartMs: closedAt - started, bodyBytesSent });
    });
  });
}
