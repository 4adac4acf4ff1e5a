import axios from 'axios';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { upstreamHttpOptions } from './upstream-http';

describe('upstream HTTP agents', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('{}')).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  afterEach(() => jest.restoreAllMocks());

  it('reuse one connection and keep the probe delay axios sets, so reusing it changes no socket option', async () => {
    const setKeepAlive = jest.spyOn(Socket.prototype, 'setKeepAlive');
    const client = axios.create({ ...upstreamHttpOptions(), maxRedirects: 0 });
    for (let i = 0; i < 3; i += 1) {
      await client.get(url);
    }
    const sockets = setKeepAlive.mock.contexts as Socket[];
    const clientSockets = new Set(sockets.filter((socket) => socket.remotePort === (server.address() as AddressInfo).port));
    expect(clientSockets.size).toBe(1);
    // Node only calls into the OS when the delay changes: with Node's default agent (1 s) and axios' 60 s they alternate.
    const delays = setKeepAlive.mock.calls.filter((_call, i) => clientSockets.has(sockets[i])).map(([, delay]) => delay);
    expect(delays.length).toBeGreaterThanOrEqual(3);
    expect(new Set(delays)).toEqual(new Set([60_000]));
  });
});
