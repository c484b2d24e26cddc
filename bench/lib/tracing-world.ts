import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { environmentKey } from './service';

/**
 * The world the tracing bench measures in (bench/scenarios/tracing.ts, bench/tracing-probe.ts): one
 * tenant's documents and readers, the cached checks that rotate over them, and an OTLP receiver
 * that keeps nothing.
 */

export const TRACING_FACTS = '/v2/facts/default/production';
const SCHEMA = '/v2/schema/default/production';
export const TRACING_TENANT = 'acme';
/** Distinct checks a load rotates through. */
export const TRACING_CHECKS = 4_000;

export interface Sink {
  url: string;
  exports: number;
  bytes: number;
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver that reads what it is sent and keeps nothing: what the services pay to export, without a backend's CPU. */
export async function startSink(): Promise<Sink> {
  const sink = { exports: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (sink.bytes += chunk.length));
    req.on('end', () => {
      sink.exports++;
      // An empty ExportTraceServiceResponse: everything accepted.
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A document type with a tenant role that reads it, `size` users (every other one holding the role) and `size` documents. */
export async function loadTracingWorld(api: Awaited<ReturnType<typeof environmentKey>>, size: number): Promise<void> {
  await api.ok('POST', `${SCHEMA}/resources`, { key: 'document', name: 'Document', actions: { read: {} } });
  await api.ok('POST', `${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['document:read'] });
  await api.ok('POST', `${TRACING_FACTS}/tenants`, { key: TRACING_TENANT, name: 'Acme' });
  for (let from = 0; from < size; from += 1000) {
    const range = Array.from({ length: Math.min(1000, size - from) }, (_, k) => from + k);
    await api.ok('POST', `${TRACING_FACTS}/bulk/users`, { operations: range.map((i) => ({ key: `u${i}` })) });
    await api.ok('PUT', `${TRACING_FACTS}/bulk/resource_instances`, {
      operations: range.map((i) => ({ key: `d${i}`, resource: 'document', tenant: TRACING_TENANT })),
    });
    await api.ok(
      'POST',
      `${TRACING_FACTS}/role_assignments/bulk`,
      range.filter((i) => i % 2 === 0).map((i) => ({ user: `u${i}`, role: 'reader', tenant: TRACING_TENANT })),
    );
  }
}

/** The bodies of `TRACING_CHECKS` distinct cached checks over a world of `size`, half of them allowed. */
export function tracingCheckBodies(size: number): string[] {
  return Array.from({ length: TRACING_CHECKS }, (_, k) =>
    JSON.stringify({
      user: `u${(3 * k) % size}`,
      action: 'read',
      resource: { type: 'document', key: `d${(7 * k) % size}`, tenant: TRACING_TENANT },
    }),
  );
}
