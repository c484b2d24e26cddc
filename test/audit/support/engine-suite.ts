import type { DocumentStore } from '../../../shared/docstore/port';
import { auditLogProjection } from '../../../projection-service/audit/audit-projection';
import { FACTS, startTestServer } from '../../support/embedded-server';
import { checkRandomQueries, checkReplaysMatchOnePass, index, randomLog } from './index-checks';

/**
 * The audit log on a read-model engine other than SQLite's (the MongoDB and PostgreSQL e2e files
 * run it): the index checks of the SQLite int test through the port (ranges of ids, both
 * directions), then the service itself. `open` gives an empty store each time, as the projection
 * writes it; `serviceEnv`, the settings of a service whose read models are on the engine.
 */
export function auditLogOnEngineSuite(open: () => Promise<DocumentStore>, serviceEnv: () => Record<string, string>): void {
  const log = randomLog(5, 150);

  it('indexes the same with crashes and replays as in one pass', async () => {
    // Few terms kept and a small filter of stored prefixes: terms are read back, and prefixes read into filters as they grow.
    await checkReplaysMatchOnePass(open, log, 40, { cachedPostings: 5, filteredPrefixes: 16 });
  }, 120_000);

  it('answers random queries as filtering the log would', async () => {
    const store = await open();
    const projection = auditLogProjection(store);
    for (let i = 0; i < log.length; i += 50) await index(projection, log.slice(i, i + 50));
    await checkRandomQueries(store, log, 15, false);
  }, 120_000);

  it('serves filtered pages, both ways, from the service', async () => {
    const server = await startTestServer({ env: serviceEnv() });
    try {
      const env = await server.api.environmentClient();
      for (const key of ['u1', 'u2', 'u3']) expect((await env.post(`${FACTS}/users`, { key })).status).toBe(200);
      const page = await env.get('/v2/events/default/production?type=UserCreated&order=desc&limit=2');
      expect(page.status).toBe(200);
      expect(page.body.data.map((e: { data: { key: string } }) => e.data.key)).toEqual(['u3', 'u2']);
      const rest = await env.get(`/v2/events/default/production?type=UserCreated&order=desc&limit=2&after=${page.body.next_after}`);
      expect(rest.body.data.map((e: { data: { key: string } }) => e.data.key)).toEqual(['u1']);
      expect(rest.body.next_after).toBeNull();
      const org = await server.api.get('/v2/events?stream=org&type=ApiKeyCreated');
      expect(org.body.data.map((e: { data: { name: string } }) => e.data.name)).toEqual(['admin', 'test']);
    } finally {
      await server.close();
    }
  }, 120_000);
}
