import net, { type Socket } from 'node:net';
import type { Config } from '../shared/config';
import { StartupRefused } from './startup-refused';

/**
 * The service's public port, taken first thing at start (before the data
 * directory is created or opened, so a start that cannot listen leaves
 * nothing behind). Connections that arrive while the service is still
 * starting wait, paused, and are handed to `serve`'s handler once it is given.
 */
export interface HeldPort {
  port: number;
  /** Hands every connection, the waiting ones first, to `handler` (paused: the handler reads it). */
  serve(handler: (socket: Socket) => void): void;
  /** Stops accepting at once; the connections handed over are the handler's to end. */
  close(): Promise<void>;
}

export async function holdPort(config: Pick<Config, 'PORT' | 'HOST'>): Promise<HeldPort> {
  let handler: ((socket: Socket) => void) | null = null;
  const waiting: Socket[] = [];
  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    if (handler) return handler(socket);
    waiting.push(socket);
    socket.once('close', () => {
      const at = waiting.indexOf(socket);
      if (at >= 0) waiting.splice(at, 1);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(portError(config, error)));
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  server.removeAllListeners('error');
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    serve(next) {
      handler = next;
      for (const socket of waiting.splice(0)) next(socket);
    },
    close() {
      for (const socket of waiting.splice(0)) socket.destroy();
      // Not waiting for the close callback: it comes once every connection the port accepted has
      // ended, and those handed over end when their server closes them (after this, at shutdown).
      // `listening` turns false at once, which long requests (audit streams) watch to end.
      server.close();
      return Promise.resolve();
    },
  };
}

function portError(config: Pick<Config, 'PORT' | 'HOST'>, error: NodeJS.ErrnoException): Error {
  const where = `${config.HOST}:${config.PORT}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new StartupRefused(`port ${where} is in use by another process: stop it, or set PORT (0: any free port)`, {
        code: error.code,
      });
    case 'EACCES':
      return new StartupRefused(`no permission to listen on ${where}: use a port above 1023, or set PORT`, { code: error.code });
    case 'EADDRNOTAVAIL':
      return new StartupRefused(`cannot listen on ${where}: this machine has no such address (HOST)`, { code: error.code });
    default:
      return error;
  }
}
