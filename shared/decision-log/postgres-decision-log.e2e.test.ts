import postgres from 'postgres';
import { describeDecisionLogContract } from '../testing/decision-log-contract';
import { createTestDatabase, type TestDatabase } from '../testing/postgres-database';
import type { DecisionLogStore } from './port';
import { PostgresDecisionLog } from './postgres-decision-log';

/**
 * The decision-log contract against a real PostgreSQL, when POSTGRES_URL points at one
 * (.ci/e2e.sh starts one with scripts/postgres.sh). The file gets a database of its own and every
 * store a schema of its own in it; without the variable the suite is reported as skipped.
 */
const serverUrl = process.env.POSTGRES_URL;

if (serverUrl) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'rebac_decisions');
  });
  afterAll(async () => {
    await database?.drop();
  });

  let counter = 0;
  const schemas = new Map<object, string>();
  const dropSchema = async (schema: string) => {
    const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await sql.end();
  };

  describeDecisionLogContract('postgres', {
    async create() {
      const schema = `decisions_${++counter}`;
      const store = await PostgresDecisionLog.connect({ url: database.url, schema });
      schemas.set(store, schema);
      return store;
    },
    async dispose(store: DecisionLogStore) {
      await store.close();
      await dropSchema(schemas.get(store)!);
    },
  });

  describe('PostgresDecisionLog', () => {
    it('creates its indexes, each leading with the environment (or the time, for retention) and ending with the id', async () => {
      const store = await PostgresDecisionLog.connect({ url: database.url, schema: 'decisions_indexes' });
      const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
      try {
        const rows = await sql<Array<{ definition: string }>>`
          SELECT indexdef AS definition FROM pg_indexes WHERE schemaname = 'decisions_indexes' AND tablename = 'decision_log'`;
        const keys = rows.map((r) => r.definition.replace(/^.*USING btree \((.*)\)$/, '$1'));
        expect(keys).toEqual(
          expect.arrayContaining(['env, ts, id', 'env, "user", ts, id', 'env, decision, ts, id', 'env, resource_type, ts, id', 'ts, id']),
        );
      } finally {
        await sql.end();
        await store.close();
        await dropSchema('decisions_indexes');
      }
    });
  });
} else {
  describe.skip('DecisionLogStore on PostgreSQL (skipped: POSTGRES_URL is not set)', () => {
    it('needs POSTGRES_URL', () => undefined);
  });
}
