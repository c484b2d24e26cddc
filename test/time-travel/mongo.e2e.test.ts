import { MongoClient } from 'mongodb';
import { startTestServer } from '../support/embedded-server';
import { asOfCheckSuite } from './support/as-of-check-suite';
import { asOfReadSuite } from './support/as-of-read-suite';
import { decisionHistorySuite } from './support/decision-history-suite';

/**
 * Time travel on the MongoDB read-model engine (FerretDB in CI: `scripts/test-servers.sh start`
 * exports MONGODB_URL): the same as_of checks, receipts, reads and decision histories as the SQLite int tests, the history
 * read model going through the document-store port only.
 */
const url = process.env.MONGODB_URL ?? '';
// One database per suite: each starts its own service on a fresh event log.
const databases = ['checks', 'history', 'reads'].map((suite) => `time_travel_${suite}_${process.pid}_${Date.now()}`);

if (url) {
  afterAll(async () => {
    const client = await MongoClient.connect(url);
    for (const database of databases) await client.db(database).dropDatabase();
    await client.close();
  });
  const onMongo = (database: string) => () =>
    startTestServer({ env: { READ_MODEL_STORE: 'mongodb', MONGODB_URL: url, MONGODB_DATABASE: database } });
  asOfCheckSuite('checks as of a past position, on MongoDB read models', onMongo(databases[0]!));
  asOfReadSuite('reads as of a past position, on MongoDB read models', onMongo(databases[2]!));
  decisionHistorySuite('the history of a decision, on MongoDB read models', onMongo(databases[1]!));
} else {
  // Reported as skipped without a server, as the other MongoDB suites are; .ci/e2e.sh sets it.
  describe.skip('time travel on MongoDB read models (skipped: MONGODB_URL is not set)', () => {
    it('needs MONGODB_URL', () => undefined);
  });
}
