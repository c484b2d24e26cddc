import postgres from 'postgres';
import { PostgresDocumentStore } from '../../docstore/postgres-document-store';
import type { DocumentStore } from '../../docstore/port';
import { createTestDatabase, type TestDatabase } from '../../testing/postgres-database';
import { describeGrantStoreContract } from '../../testing/grant-store-contract';

/**
 * The grant store's contract against a real PostgreSQL, when POSTGRES_URL points at one (as the
 * document store's e2e file): a database for the file, a schema per store.
 */
const serverUrl = process.env.POSTGRES_URL;

if (serverUrl) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'rebac_grants_store');
  });
  afterAll(async () => {
    await database?.drop();
  });

  let counter = 0;
  const schemas = new Map<object, string>();
  describeGrantStoreContract('postgres', {
    async create() {
      const schema = `grants_${++counter}`;
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
  });
} else {
  it.skip('needs POSTGRES_URL (scripts/test-servers.sh start)', () => undefined);
}
