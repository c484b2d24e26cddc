import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../../shared/docstore/mongo-document-store';
import { grantsMatchRecomputation } from './support/engine-sequence';

/**
 * The grants projection on the MongoDB read-model engine (FerretDB in CI:
 * `scripts/test-servers.sh start` exports MONGODB_URL): the same random
 * sequence check as the SQLite int test, through the port only.
 */
const url = process.env.MONGODB_URL ?? '';
// Reported as skipped without a server (as the EventStoreDB contract is), so `npx jest test/grants` runs anywhere; .ci/e2e.sh sets it.
const describeWithMongo = url ? describe : describe.skip;

describeWithMongo(`derived grants on MongoDB read models${url ? '' : ' (skipped: MONGODB_URL is not set)'}`, () => {
  const database = `grants_${process.pid}_${Date.now()}`;
  afterAll(async () => {
    const client = await MongoClient.connect(url);
    await client.db(database).dropDatabase();
    await client.close();
  });

  it('matches a from-scratch recomputation along a random sequence', async () => {
    await grantsMatchRecomputation(await MongoDocumentStore.connect({ url, database }));
  }, 120_000);
});
