import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { keepRequestsSentInTime } from './keep-alive';

/** Node adds this much to the server's keep-alive timeout before the socket's own fires (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER). */
const NODE_BUFFER_MS = 1_000;
const KEEP_ALIVE_MS = 100;
const REQUEST = 'GET / HTTP/1.1\r\nHost: test\r\n\r\n';

/** Holds this thread (its event loop with it) for `ms`, as a long synchronous piece of work does. */
function holdTheLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** What the connection gets next: an answer's status line, or how it ended without one. */
function nextAnswer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.endsWith('ok')) finish(received.split('\r\n', 1)[0]!);
    };
    const onError = (error: NodeJS.ErrnoException) => finish(error.code ?? error.message);
    const onClose = () => finish('closed');
    const finish = (outcome: string) => {
      socket.off('data', onData).off('error', onError).off('close', onClose);
      resolve(outcome);
    };
    socket.on('data', onData).on('error', onError).on('close', onClose);
  });
}

async function serve(fixed: boolean): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end('ok'));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  if (fixed) keepRequestsSentInTime(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** A connection to `port` whose first request has been answered: kept alive, idle. */
async function keptAlive(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(REQUEST);
  expect(await nextAnswer(socket)).toBe('HTTP/1.1 200 OK');
  return socket;
}

/** Two requests on one connection, the second sent in time but read only after the loop was held past the timeout. */
async function secondRequestAfterAStall(fixed: boolean): Promise<string> {
  const { server, port } = await serve(fixed);
  const socket = await keptAlive(port);
  try {
    const answer = nextAnswer(socket);
    // The request reaches the kernel now (the write is tried at once); the server reads it after the stall.
    socket.write(REQUEST);
    holdTheLoop(KEEP_ALIVE_MS + NODE_BUFFER_MS + 500);
    return await answer;
  } finally {
    socket.destroy();
    server.closeAllConnections();
    server.close();
  }
}

describe('keep-alive connections through a stalled event loop', () => {
  it('answers a request sent in time on a kept-alive connection, though the loop was held past the timeout', async () => {
    expect(await secondRequestAfterAStall(true)).toBe('HTTP/1.1 200 OK');
  });

  it('is needed: without it, Node resets that connection', async () => {
    expect(await secondRequestAfterAStall(false)).toMatch(/ECONNRESET|closed/);
  });

  it('still closes a connection that stays idle past the timeout', async () => {
    const { server, port } = await serve(true);
    const socket = await keptAlive(port);
    try {
      const started = performance.now();
      await once(socket, 'close');
      expect(performance.now() - started).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
