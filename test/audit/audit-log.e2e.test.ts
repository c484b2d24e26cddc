import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../../shared/docstore/mongo-document-store';
import type { DocumentStore } from '../../shared/docstore/port';
import { FACTS, startTestServer } from '../support/embedded-server';
import { auditLogProjection } from '../../projection-service/audit/audit-projection';
import { checkRandomQueries, checkReplaysMatchOnePass, index, randomLog } from './support/index-checks';

/**
 * The audit log on MongoDB read models (FerretDB in CI: `scripts/test-servers.sh
 * start` exports MONGODB_URL): the index checks of the SQLite int test through
 * the port (ranges of `_id`, both directions), then the service itself.
 */
const url = process.env.MONGODB_URL ?? '';
const describeWithMongo = url ? describe : describe.skip;

describeWithMongo(`audit log on MongoDB read models${url ? '' : ' (skipped: MONGODB_URL is not set)'}`, () => {
  const run = `audit_${process.pid}_${Date.now()}`;
  const databases: string[] = [];
  const stores: DocumentStore[] = [];
  const open = async () => {
    const database = `${run}_${databases.length}`;
    databases.push(database);
    const store = await MongoDocumentStore.connect({ url, database });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
    const client = await MongoClient.connect(url);
    for (const database of databases) await client.db(database).dropDatabase();
    await client.close();
  });

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
    const database = `${run}_service`;
    databases.push(database);
    const server = await startTestServer({ env: { READ_MODEL_STORE: 'mongodb', MONGODB_URL: url, MONGODB_DATABASE: database } });
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
});
