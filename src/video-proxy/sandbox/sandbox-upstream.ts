import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { signHeaders } from '../callbacks/upstream-signature';
import { DEFAULT_PRICES, estimateCredits } from '../pricing';
import { VIDEO_MODELS, VideoModel } from '../video-models';
import { VideoTaskState } from '../entities/video-task.entity';

interface SandboxTask {
  id: string;
  createdAt: number;
  request: Record<string, unknown>;
  credits: number;
  /** Set when a cancel was accepted: the task stays canceled and reports nothing more. */
  canceled?: boolean;
}

/** When each state begins, in ms after creation: created → queueing → processing → success. */
const TIMELINE: [number, VideoTaskState][] = [
  [0, 'created'],
  [1000, 'queueing'],
  [2000, 'processing'],
  [4000, 'success'],
];
const MAX_TASKS = 10_000;
/** What the sandbox's creations link to: the first bytes of an mp4 and of a JPEG, enough to be told apart. */
const SAMPLE_FILES = {
  mp4: Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom\0\0\0\0isommp41', 'latin1')]),
  jpg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]),
};
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * A stand-in for the upstream video API, over real HTTP on loopback, so the
 * service works end to end without credentials. It speaks the same wire
 * protocol (Token auth, task replies, `{code, reason, message}` errors) and
 * walks each task from created to success over a few seconds.
 */
export class SandboxUpstream {
  readonly apiKey = `sandbox_${randomBytes(16).toString('hex')}`;
  private readonly tasks = new Map<string, SandboxTask>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server?: Server;
  private url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => this.send(res, 500, { code: 'Internal', reason: 'Internal', message: 'sandbox failure' }));
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The creations' links, public as a CDN's (kept by this service: see UpstreamTarget.isSandboxUrl).
    const file = /^\/files\/[^/]+\.(mp4|jpg)$/.exec(req.url ?? '');
    if (req.method === 'GET' && file) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(SAMPLE_FILES[file[1] as 'mp4' | 'jpg']);
      return;
    }
    if (req.headers.authorization !== `Token ${this.apiKey}`) {
      return this.send(res, 401, { code: 'Unauthorized', reason: 'Unauthorized', message: 'invalid API key' });
    }
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/ent/v2/reference2video') {
      return this.create(await this.readJson(req), res);
    }
    const query = /^\/ent\/v2\/tasks\/([^/]+)\/creations$/.exec(path);
    if (req.method === 'GET' && query) {
      return this.query(decodeURIComponent(query[1]), res);
    }
    const cancel = /^\/ent\/v2\/tasks\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      return this.cancel(decodeURIComponent(cancel[1]), res);
    }
    this.send(res, 404, { code: 'NotFound', reason: 'NotFound', message: `no route ${req.method} ${path}` });
  }

  private create(body: unknown, res: ServerResponse): void {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return this.send(res, 400, { code: 'BadRequest', reason: 'BadRequest', message: 'body must be a JSON object' });
    }
    const request = body as Record<string, unknown>;
    const model = (VIDEO_MODELS as readonly unknown[]).includes(request.model) ? (request.model as VideoModel) : 'videoq3-pro';
    const task: SandboxTask = {
      id: `sandbox-${randomUUID()}`,
      createdAt: Date.now(),
      request: { ...request, model, seed: request.seed ?? Math.floor(Math.random() * 2 ** 31) },
      credits: estimateCredits(
        { model, duration: request.duration as number | undefined, off_peak: request.off_peak === true, is_rec: request.is_rec === true },
        DEFAULT_PRICES,
        50,
      ),
    };
    if (this.tasks.size >= MAX_TASKS) {
      this.tasks.delete(this.tasks.keys().next().value as string);
    }
    this.tasks.set(task.id, task);
    this.send(res, 200, this.describe(task));
    if (typeof request.callback_url === 'string') {
      this.scheduleCallbacks(task, request.callback_url);
    }
  }

  /** Reports each later state to the callback URL, signed as the real upstream signs. */
  private scheduleCallbacks(task: SandboxTask, callbackUrl: string): void {
    for (const [startMs] of TIMELINE.slice(1)) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.callBack(task, callbackUrl);
      }, startMs + 50);
      timer.unref();
      this.timers.add(timer);
    }
  }

  private async callBack(task: SandboxTask, callbackUrl: string): Promise<void> {
    if (task.canceled) return;
    const url = new URL(callbackUrl);
    const headers = signHeaders(
      this.apiKey,
      'sandbox',
      { method: 'POST', path: url.pathname, query: Object.fromEntries(url.searchParams) },
      randomUUID(),
    );
    try {
      await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify(this.describe(task)),
        signal: AbortSignal.timeout(5000),
      });
    } catch {
      // Like a real upstream, the sandbox does not insist: polling still catches up.
    }
  }

  private query(id: string, res: ServerResponse): void {
    const task = this.tasks.get(id);
    if (!task) {
      return this.send(res, 404, { code: 'NotFound', reason: 'TaskNotFound', message: `task ${id} not found` });
    }
    this.send(res, 200, this.describe(task));
  }

  /** As the real upstream: a task is canceled only before it starts processing. */
  private cancel(id: string, res: ServerResponse): void {
    const task = this.tasks.get(id);
    if (!task) {
      return this.send(res, 404, { code: 'NotFound', reason: 'TaskNotFound', message: `task ${id} not found` });
    }
    const state = this.stateOf(task);
    if (state !== 'created' && state !== 'queueing' && state !== 'canceled') {
      return this.send(res, 400, { code: 'BadRequest', reason: 'BadRequest', message: `task state is ${state}, can not cancel` });
    }
    task.canceled = true;
    this.send(res, 200, {});
  }

  private stateOf(task: SandboxTask): VideoTaskState {
    if (task.canceled) return 'canceled';
    const elapsed = Date.now() - task.createdAt;
    return TIMELINE.filter(([start]) => elapsed >= start).at(-1)?.[1] ?? 'created';
  }

  private describe(task: SandboxTask): Record<string, unknown> {
    const state = this.stateOf(task);
    const { prompt, duration, images, aspect_ratio, resolution, seed, style, movement_amplitude, bgm, off_peak, payload, watermark, model } =
      task.request;
    return {
      task_id: task.id,
      id: task.id,
      state,
      credits: task.credits,
      model,
      prompt,
      duration,
      images,
      aspect_ratio,
      resolution,
      seed,
      style,
      movement_amplitude,
      bgm,
      off_peak,
      payload,
      watermark: watermark ?? false,
      created_at: new Date(task.createdAt).toISOString(),
      creations:
        state === 'success'
          ? [{ id: `${task.id}-1`, url: `${this.url}/files/${task.id}.mp4`, cover_url: `${this.url}/files/${task.id}.jpg` }]
          : [],
    };
  }

  private async readJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return undefined;
      chunks.push(chunk as Buffer);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return undefined;
    }
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  }
}
