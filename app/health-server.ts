import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

export interface Readiness {
  ready: boolean;
  /** Shown in the /readyz body (e.g. `standby`, the projection position). */
  [detail: string]: unknown;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The tiny HTTP server of a service without an API (projection service, task
 * service): `GET /healthz` answers 200 while the process runs, `GET /readyz`
 * 200 or 503 from `readiness()`, with its details as JSON, and `GET /metrics`
 * the service's metrics when a handler is given.
 */
export async function startHealthServer(
  host: string,
  port: number,
  readiness: () => Readiness,
  logger: Logger,
  metrics?: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (metrics && req.method === 'GET' && path === '/metrics') {
      void metrics(req, res);
      return;
    }
    let status = 404;
    let body: unknown = { error_code: 'NOT_FOUND', message: `No route for ${req.method} ${path}` };
    if (req.method === 'GET' && path === '/healthz') {
      status = 200;
      body = { status: 'ok' };
    } else if (req.method === 'GET' && path === '/readyz') {
      const { ready, ...details } = readiness();
      status = ready ? 200 : 503;
      body = { status: ready ? 'ready' : 'starting', ...details };
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const url = `http://${host}:${bound}`;
  logger.info({ url }, 'health endpoints listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
