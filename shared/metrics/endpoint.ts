import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from './metrics';

/**
 * `GET /metrics`: the Prometheus text exposition of `metrics`. Open, like
 * `/healthz`, unless a token is set (METRICS_TOKEN): then only a request with
 * `Authorization: Bearer <token>` gets it (401 otherwise). Served by the API
 * (express) and by the health server of the projection and task services
 * (plain node:http), so it takes node's request and response.
 */
export function metricsHandler(metrics: Metrics, token: string | undefined): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const expected = token === undefined ? null : digest(token);
  return async (req, res) => {
    if (expected && !authorized(req.headers.authorization, expected)) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' });
      res.end(JSON.stringify({ error_code: 'UNAUTHORIZED', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' }));
      return;
    }
    let text: string;
    try {
      text = await metrics.scrape();
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`could not collect the metrics: ${error instanceof Error ? error.message : String(error)}\n`);
      return;
    }
    res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
    res.end(text);
  };
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!.trim()), expected);
}

/** Compared as SHA-256 digests: equal lengths, so the comparison takes the same time whatever was sent. */
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
