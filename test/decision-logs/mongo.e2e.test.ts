import { MongoClient } from 'mongodb';
import { startTestServer } from '../support/embedded-server';
import { decisionLogSuite } from './support/decision-log-suite';

/**
 * The decision log with READ_MODEL_STORE=mongodb (FerretDB in CI: `scripts/test-servers.sh start`
 * exports MONGODB_URL): its entries in MongoDB's `decision_log`, the same API answers as on SQLite.
 */
const url = process.env.MONGODB_URL ?? '';
const database = `decisions_${process.pid}_${Date.now()}`;

if (url) {
  afterAll(async () => {
    const client = await MongoClient.connect(url);
    await client.db(database).dropDatabase();
    await client.close();
  });
  decisionLogSuite('decision logs, on MongoDB', () =>
    startTestServer({ env: { READ_MODEL_STORE: 'mongodb', MONGODB_URL: url, MONGODB_DATABASE: database } }),
  );
} else {
  describe.skip('decision logs on MongoDB (skipped: MONGODB_URL is not set)', () => {
    it('needs MONGODB_URL', () => undefined);
  });
}
