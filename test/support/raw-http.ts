import { once } from 'node:events';
import { request } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { TestApp } from './test-app';

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

/** The port the app's server listens on, started on a free one if it is not listening yet. */
async function portOf(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as { address(): AddressInfo | string | null; listening: boolean; listen(port: number): void };
  if (!server.listening) {
    server.listen(0);
    await once(server as unknown as NodeJS.EventEmitter, 'listening');
  }
  return (server.address() as AddressInfo).port;
}

export interface BodyReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * Sends `body` exactly as given (bytes, headers) with Node's own client and
 * parses the JSON reply. Supertest is not used for these: it takes seconds
 * to send a 16 MB buffer, and it cannot send a compressed body as it is.
 */
export async function sendBody(t: TestApp, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<BodyReply> {
  const port = await portOf(t);
  return new Promise<BodyReply>((resolve, reject) => {
    let reply: BodyReply | undefined;
    const req = request({ host: '127.0.0.1', port, method, path, headers: { 'Content-Length': String(body.length), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        reply = { status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
        resolve(reply);
      });
    });
    // The server may answer before all of the body is sent: a write that fails after the reply does not change it.
    req.on('error', (error) => (reply ? undefined : reject(error)));
    req.end(body);
  });
}

/**
 * Sends the request line and headers, announces `contentLength` bytes of body
 * but sends only `bodyStart`, and reads the reply. A server that waited for
 * the body would never answer: that shows as the socket's idle timeout.
 */
export async function announceBody(t: TestApp, announced: AnnouncedRequest): Promise<RawReply> {
  const port = await portOf(t);
  const socket = connect(port, '127.0.0.1');
  socket.setTimeout(5000);
  const lines = Object.entries({
    Host: 'localhost',
    'Content-Type': 'application/json',
    'Content-Length': String(announced.contentLength),
    ...announced.headers,
  });
  socket.write(`${announced.method} ${announced.path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${announced.bodyStart}`);
  let received = '';
  return new Promise<RawReply>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...headerLines] = received.slice(0, end).split('\r\n');
      const replyHeaders = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const body = received.slice(end + 4);
      if (Buffer.byteLength(body) < Number(replyHeaders['content-length'] ?? 0)) return;
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers: replyHeaders, body });
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new Error(`no reply while the announced body was not sent (got ${JSON.stringify(received)})`));
    });
    socket.on('error', reject);
  });
}
