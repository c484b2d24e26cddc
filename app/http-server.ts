import type { Express } from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerUnparsableRequests } from '../command-service/http/client-errors';
import { requestListener } from '../command-service/http/fast-lane';
import { keepRequestsSentInTime } from '../command-service/http/keep-alive';
import type { Config } from '../shared/config';

/** Listens on HOST:PORT (PORT 0: any free port) and resolves with the server and its URL. */
export async function listen(app: Express, config: Config): Promise<{ server: Server; url: string }> {
  const server = createServer(requestListener(app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  answerUnparsableRequests(server);
  keepRequestsSentInTime(server);
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://${config.HOST}:${port}` };
}

/** Stops taking requests and resolves once in-flight ones have finished. */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
}

/**
 * Serves a connection accepted elsewhere (the front door of app/check-workers.ts) on `server`,
 * beginning with the bytes already read from it: they reach the HTTP parser before anything the
 * socket reads from here on.
 */
export function takeConnection(server: Server, socket: Socket, firstBytes: Buffer): void {
  server.emit('connection', socket);
  if (firstBytes.length > 0) socket.emit('data', firstBytes);
  socket.resume();
}
