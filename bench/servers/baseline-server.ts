/**
 * The baseline: a bare express 5 app on loopback that parses the JSON body like
 * any route would, and answers every POST/PUT/DELETE with a fixed JSON body of
 * `?bytes=N` bytes. No auth, no logging, no storage: what one express route
 * costs on this machine, so a scenario's ratio to it says how much of the
 * ceiling the service reaches.
 */
import express from 'express';

const port = Number(process.env.PORT ?? 0);
const bodies = new Map<number, object>();

/** A JSON object whose serialised form is exactly `bytes` long (at least `{"p":""}`). */
function bodyOf(bytes: number): object {
  let body = bodies.get(bytes);
  if (!body) {
    body = { p: 'x'.repeat(Math.max(0, bytes - 8)) };
    bodies.set(bytes, body);
  }
  return body;
}

const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: 8 * 1024 * 1024, type: () => true }));
app.all('/{*path}', (req, res) => {
  res.json(bodyOf(Number(req.query.bytes ?? 16)));
});
const server = app.listen(port, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`baseline listening on ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
