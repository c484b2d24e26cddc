import { MongoClient } from 'mongodb';
import { describeDecisionLogContract } from '../testing/decision-log-contract';
import { MongoDecisionLog } from './mongo-decision-log';
import type { DecisionLogStore } from './port';

/**
 * The decision-log contract against a real MongoDB-protocol server (FerretDB in CI:
 * scripts/test-servers.sh start exports MONGODB_URL). Every test gets its own database, dropped afterwards.
 */
const url = process.env.MONGODB_URL;
if (!url) throw new Error('MONGODB_URL is not set: start the test servers (scripts/test-servers.sh start) or run .ci/e2e.sh');

const run = `decisions_${process.pid}_${Date.now()}`;
let counter = 0;
const databases = new Map<object, string>();

describeDecisionLogContract('mongodb', {
  async create() {
    const database = `${run}_${++counter}`;
    const store = await MongoDecisionLog.connect({ url, database });
    databases.set(store, database);
    return store;
  },
  async dispose(store: DecisionLogStore) {
    await store.close();
    const client = await MongoClient.connect(url);
    await client.db(databases.get(store)).dropDatabase();
    await client.close();
  },
});

describe('MongoDecisionLog', () => {
  it('creates its indexes, each leading with the environment and ending with the time', async () => {
    const database = `${run}_indexes`;
    const store = await MongoDecisionLog.connect({ url, database });
    const client = await MongoClient.connect(url);
    try {
      const keys = (await client.db(database).collection('decision_log').indexes()).map((i) => i.key);
      expect(keys).toEqual(
        expect.arrayContaining([
          { env: 1, ts: 1 },
          { env: 1, user: 1, ts: 1 },
          { env: 1, decision: 1, ts: 1 },
          { env: 1, resource_type: 1, ts: 1 },
          { ts: 1 },
        ]),
      );
    } finally {
      await store.close();
      await client.db(database).dropDatabase();
      await client.close();
    }
  });
});
