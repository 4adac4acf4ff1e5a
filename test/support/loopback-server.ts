import { once } from 'node:events';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** Starts `server` on a free port of 127.0.0.1; resolves with the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Closes `server` and every connection it still holds (kept-alive ones included). */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
}
