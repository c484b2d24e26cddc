import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { errorBody } from '../command-service/http/error-middleware';
import { UnavailableError } from '../shared/errors';

/** Headers of one hop (RFC 9110 §7.6.1): each side of the forwarder has its own connection. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEnd(headers: IncomingHttpHeaders, keep?: string): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if ((name === keep || !HOP_BY_HOP.has(name)) && value !== undefined) kept[name] = value;
  return kept;
}

/**
 * Forwards a request, as it came, to the process that serves everything (the main process of
 * the one-process service, on its loopback port), and its answer back as it went: status,
 * headers and body streamed both ways (server-sent events included). A check worker takes a
 * connection, not a request, so what it does not serve itself goes this way.
 */
export function forwardTo(port: number, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const agent = new http.Agent({ keepAlive: true });
  return (req, res) => {
    const upstream = http.request(
      // A chunked body stays chunked: node would send a DELETE's body without any framing otherwise.
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: endToEnd(req.headers, 'transfer-encoding'), agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      logger.warn({ err: error, method: req.method, url: req.url }, 'could not forward a request to the main process');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify(errorBody(new UnavailableError('The service is restarting; retry shortly')));
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(body);
    });
    // The client went away before its answer: stop the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
}
