import postgres from 'postgres';
import { describeDocumentStoreContract } from '../testing/document-store-contract';
import { describeFindFields } from '../testing/find-fields-contract';
import { createTestDatabase, type TestDatabase } from '../testing/postgres-database';
import type { DocumentStore } from './port';
import { PostgresDocumentStore } from './postgres-document-store';

/**
 * The document-store contract and the PostgreSQL adapter's own promises against a real
 * PostgreSQL, when POSTGRES_URL points at one (.ci/e2e.sh starts one with scripts/postgres.sh).
 * The file gets a database of its own, and every store a schema of its own in it; without the
 * variable the suite is reported as skipped.
 */
const serverUrl = process.env.POSTGRES_URL;

if (serverUrl) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'rebac_rm');
  });
  afterAll(async () => {
    await database?.drop();
  });

  let counter = 0;
  const schemas = new Map<object, string>();
  const harness = {
    async create() {
      const schema = `contract_${++counter}`;
      const store = await PostgresDocumentStore.connect({ url: database.url, schema });
      schemas.set(store, schema);
      return store;
    },
    async dispose(store: DocumentStore) {
      await store.close();
      const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
      await sql.unsafe(`DROP SCHEMA IF EXISTS "${schemas.get(store)}" CASCADE`);
      await sql.end();
    },
  };
  describeDocumentStoreContract('postgres', harness);
  describeFindFields('postgres', harness);
} else {
  describe.skip('DocumentStore on PostgreSQL (skipped: POSTGRES_URL is not set)', () => {
    it('needs POSTGRES_URL', () => undefined);
  });
}
