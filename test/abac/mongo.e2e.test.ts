import { MongoClient } from 'mongodb';
import { startTestServer } from '../support/embedded-server';
import { abacCheckSuite } from './support/abac-check-suite';

/**
 * Set rules on the MongoDB read-model engine (FerretDB in CI: `scripts/test-servers.sh start`
 * exports MONGODB_URL): the same checks, lists and histories as the SQLite int test, the condition
 * sets and set rules read models going through the document-store port only.
 */
const url = process.env.MONGODB_URL ?? '';
const database = `abac_${process.pid}_${Date.now()}`;

if (url) {
  afterAll(async () => {
    const client = await MongoClient.connect(url);
    await client.db(database).dropDatabase();
    await client.close();
  });
  abacCheckSuite('checks evaluate set rules, on MongoDB read models', () =>
    startTestServer({ env: { READ_MODEL_STORE: 'mongodb', MONGODB_URL: url, MONGODB_DATABASE: database } }),
  );
} else {
  // Reported as skipped without a server, as the other MongoDB suites are; .ci/e2e.sh sets it.
  describe.skip('ABAC on MongoDB read models (skipped: MONGODB_URL is not set)', () => {
    it('needs MONGODB_URL', () => undefined);
  });
}
