import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../../shared/docstore/mongo-document-store';
import type { DocumentStore } from '../../shared/docstore/port';
import { auditLogOnEngineSuite } from './support/engine-suite';

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

  auditLogOnEngineSuite(open, () => {
    const database = `${run}_service`;
    databases.push(database);
    return { READ_MODEL_STORE: 'mongodb', MONGODB_URL: url, MONGODB_DATABASE: database };
  });
});
