import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A file the fake's CDN serves at `/files/{name}` (the creations' `url` and `cover_url`). */
export interface ServedFile {
  data: Buffer;
  /** Sent in chunks (of chunkBytes, else 64 KiB) this far apart (a slow download, to interrupt). */
  chunkDelayMs?: number;
  chunkBytes?: number;
  /** Sent chunked, without a Content-Length (the size is known only once it has all come). */
  undeclaredLength?: boolean;
  /** Served once this many times before answering 503 (a flaky CDN); decremented per request. */
  failFirst?: number;
  /** Answered with a redirect to this address instead. */
  redirectTo?: string;
}

export interface ScriptedResponse {
  status?: number;
  /** A string is sent as is (to fake malformed replies); anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Close the connection instead of answering (a crashed or restarting upstream). */
  dropConnection?: boolean;
  /** Send the status, headers and first byte of the body, then stall this long before the rest. */
  stallBodyMs?: number;
  /** Send the status, headers (the full Content-Length) and first byte of the body, then close the connection. */
  cutBody?: boolean;
  /** Instead of `body`, this many bytes of filler (a reply over the proxy's size limit). */
  fillerBytes?: number;
  /** Send the body gzip-compressed (axios asks for it), with `Content-Encoding: gzip`. */
  gzip?: boolean;
}

/**
 * The upstream video API, faked by a real HTTP server on loopback that speaks
 * its wire protocol: tests see exactly what the proxy sent, and script what
 * the upstream answers (by default, a created task echoing the request).
 */
export class FakeUpstream {
  readonly apiKey = 'fake-upstream-secret-key';
  readonly requests: RecordedRequest[] = [];
  /** Credits the default reply charges. */
  credits: number | string = 10;
  private readonly script: ScriptedResponse[] = [];
  /** What `GET /ent/v2/tasks/{id}/creations` answers, by task id. */
  readonly taskStatus = new Map<string, Record<string, unknown>>();
  /**
   * `POST /ent/v2/tasks/{id}/cancel`, unless a scripted response comes first: `{}` (and the task's
   * status becomes canceled) while the task has not reached `processing` in `taskStatus`; once it
   * runs, 400 "task state is processing, can not cancel", as the real upstream answers.
   */
  cancelOutcome(taskId: string): ScriptedResponse {
    const state = this.taskStatus.get(taskId)?.state;
    if (state === 'processing' || state === 'success' || state === 'failed') {
      return { status: 400, body: { code: 'BadRequest', reason: 'BadRequest', message: `task state is ${String(state)}, can not cancel` } };
    }
    this.taskStatus.set(taskId, { state: 'canceled' });
    return { body: {} };
  }
  /** What `GET /files/{name}` serves; a name not here is 404 (a link gone). */
  readonly files = new Map<string, ServedFile>();
  private server!: Server;
  private taskCount = 0;

  static async start(): Promise<FakeUpstream> {
    const upstream = new FakeUpstream();
    upstream.server = createServer((req, res) => void upstream.handle(req, res));
    upstream.server.listen(0, '127.0.0.1');
    await once(upstream.server, 'listening');
    return upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** How long `GET /ent/v2/tasks/{id}/creations` waits before answering (a slow upstream). */
  statusDelayMs = 0;

  /** The next requests get these responses, in order; then the default again. */
  respondNext(...responses: ScriptedResponse[]): void {
    this.script.push(...responses);
  }

  /** Serves `data` at `/files/{name}` and returns its URL. */
  serveFile(name: string, data: Buffer, options: Omit<ServedFile, 'data'> = {}): string {
    this.files.set(name, { data, ...options });
    return `${this.url}/files/${encodeURIComponent(name)}`;
  }

  reset(): void {
    this.requests.length = 0;
    this.statusDelayMs = 0;
    this.taskStatus.clear();
    this.files.clear();
    this.script.length = 0;
    this.credits = 10;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body: unknown = text ? JSON.parse(text) : undefined;
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    const query = /^\/ent\/v2\/tasks\/([^/]+)\/creations$/.exec(req.url ?? '');
    if (req.method === 'GET' && query) {
      if (this.statusDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.statusDelayMs));
      const status = this.taskStatus.get(decodeURIComponent(query[1]));
      res.writeHead(status ? 200 : 404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(status ? { id: decodeURIComponent(query[1]), ...status } : { code: 'NotFound', message: 'no such task' }));
      return;
    }

    // A link may carry a query (a pre-signed CDN link's token), which the file's name leaves out.
    const file = /^\/files\/([^/?]+)(?:\?.*)?$/.exec(req.url ?? '');
    if (req.method === 'GET' && file) {
      await this.sendFile(this.files.get(decodeURIComponent(file[1])), res);
      return;
    }
    const cancel = /^\/ent\/v2\/tasks\/([^/]+)\/cancel$/.exec(req.url ?? '');
    const scripted =
      this.script.shift() ?? (req.method === 'POST' && cancel ? this.cancelOutcome(decodeURIComponent(cancel[1])) : this.created(body as Record<string, unknown>));
    if (scripted.delayMs) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
    if (scripted.dropConnection) {
      req.socket.destroy();
      return;
    }
    const reply = typeof scripted.body === 'string' ? scripted.body : JSON.stringify(scripted.body ?? {});
    const payload = scripted.gzip ? gzipSync(reply) : Buffer.from(reply);
    if (res.destroyed) return;
    res.writeHead(scripted.status ?? 200, {
      'Content-Type': 'application/json',
      ...(scripted.gzip ? { 'Content-Encoding': 'gzip' } : {}),
      ...(scripted.cutBody ? { 'Content-Length': String(payload.length) } : {}),
      ...scripted.headers,
    });
    if (scripted.fillerBytes) {
      res.end(Buffer.alloc(scripted.fillerBytes, ' '));
      return;
    }
    if (scripted.cutBody) {
      res.write(payload.subarray(0, 1), () => req.socket.destroy());
      return;
    }
    if (scripted.stallBodyMs) {
      res.write(payload.subarray(0, 1));
      await new Promise((resolve) => setTimeout(resolve, scripted.stallBodyMs));
      if (res.destroyed) return;
      res.end(payload.subarray(1));
      return;
    }
    res.end(payload);
  }

  private async sendFile(file: ServedFile | undefined, res: ServerResponse): Promise<void> {
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('link expired');
      return;
    }
    if (file.redirectTo) {
      res.writeHead(302, { Location: file.redirectTo }).end();
      return;
    }
    if (file.failFirst) {
      file.failFirst -= 1;
      res.writeHead(503, { 'Content-Type': 'text/plain' }).end('busy');
      return;
    }
    // What the CDN claims is irrelevant: the proxy sniffs the bytes.
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', ...(file.undeclaredLength ? {} : { 'Content-Length': String(file.data.length) }) });
    const chunk = file.chunkBytes ?? 64 * 1024;
    for (let offset = 0; offset < file.data.length && !res.destroyed; offset += chunk) {
      if (file.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, file.chunkDelayMs));
      if (!res.write(file.data.subarray(offset, offset + chunk))) await drainedOrClosed(res);
    }
    res.end();
  }

  private created(request: Record<string, unknown>): ScriptedResponse {
    this.taskCount += 1;
    const { prompt, model, duration, images, seed, style, payload, resolution, aspect_ratio } = request ?? {};
    return {
      body: {
        task_id: `fake-task-${this.taskCount}-${Date.now()}`,
        state: 'created',
        credits: this.credits,
        created_at: new Date().toISOString(),
        prompt,
        model,
        duration,
        images,
        seed: seed ?? 42,
        style,
        payload,
        resolution,
        aspect_ratio,
        watermark: false,
      },
    };
  }
}

/** Resolves when `res` can take more, or is gone; leaves no listener behind. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
