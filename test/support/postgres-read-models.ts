import { createTestDatabase, type TestDatabase } from '../../shared/testing/postgres-database';

/**
 * Read models on PostgreSQL for a test file: a database of its own on the server POSTGRES_URL
 * names (made before the file's tests, dropped after them), and in it a schema per service or
 * store the tests start, so that none sees another's tables. Call at the top of a file, inside
 * `if (process.env.POSTGRES_URL)`: it registers the file's beforeAll and afterAll.
 */
export function postgresReadModelsDatabase(serverUrl: string, prefix: string) {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, prefix);
  });
  afterAll(async () => {
    await database?.drop();
  });
  const url = (): string => {
    if (!database) throw new Error('the test database is made in beforeAll: ask for it inside a test or a hook');
    return database.url;
  };
  return {
    url,
    /** A service's settings for read models (and the decision log) in `schema` of the file's database. */
    env: (schema: string): Record<string, string> => ({
      READ_MODEL_STORE: 'postgres',
      POSTGRES_URL: url(),
      POSTGRES_READ_MODELS_SCHEMA: schema,
    }),
  };
}
