import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, unknown>;
}

/** A client's callback endpoint: records every delivery; answers with scripted statuses (default 200). */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  /** Statuses for the next deliveries, in order; then `status`. */
  readonly failNext: number[] = [];
  status = 200;
  attempts = 0;
  private server!: Server;

  static async start(): Promise<CallbackReceiver> {
    const receiver = new CallbackReceiver();
    receiver.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        receiver.attempts += 1;
        const status = receiver.failNext.shift() ?? receiver.status;
        if (status >= 200 && status < 300) {
          const rawBody = Buffer.concat(chunks).toString('utf8');
          receiver.received.push({ headers: req.headers, rawBody, body: JSON.parse(rawBody) as Record<string, unknown> });
        }
        res.writeHead(status).end();
      });
    });
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/video`;
  }

  async waitFor(count: number, timeoutMs = 15000): Promise<ReceivedCallback[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} callbacks, got ${this.received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.received;
  }

  /** The first delivery about one task, waiting for it. */
  async waitForTask(taskId: string, timeoutMs = 15000): Promise<ReceivedCallback> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const delivery = this.received.find((d) => d.body.task_id === taskId);
      if (delivery) return delivery;
      if (Date.now() > deadline) throw new Error(`no callback for task ${taskId}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
