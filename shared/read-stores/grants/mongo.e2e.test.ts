import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../../docstore/mongo-document-store';
import type { DocumentStore } from '../../docstore/port';
import { describeGrantStoreContract } from '../../testing/grant-store-contract';

/** The grant store's contract against a real MongoDB-protocol server (FerretDB in CI), a database per test. */
const url = process.env.MONGODB_URL;
if (!url) throw new Error('MONGODB_URL is not set: start the test servers (scripts/test-servers.sh start) or run .ci/e2e.sh');

const run = `grants_${process.pid}_${Date.now()}`;
let counter = 0;
const databases = new Map<object, string>();

describeGrantStoreContract('mongodb', {
  async create() {
    const database = `${run}_${++counter}`;
    const store = await MongoDocumentStore.connect({ url, database });
    databases.set(store, database);
    return store;
  },
  async dispose(store: DocumentStore) {
    await store.close();
    const client = await MongoClient.connect(url);
    await client.db(databases.get(store)).dropDatabase();
    await client.close();
  },
});
