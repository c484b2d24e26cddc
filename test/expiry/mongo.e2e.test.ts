import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../../shared/docstore/mongo-document-store';
import { randomSequenceWithEnds } from './support/random-ends';

/**
 * Ends on the MongoDB read-model engine (FerretDB in CI: `scripts/test-servers.sh start` exports
 * MONGODB_URL): the random sequence with ends of randomized-ends.int.test.ts, through the port only.
 */
const url = process.env.MONGODB_URL ?? '';
const describeWithMongo = url ? describe : describe.skip;

describeWithMongo(`expiring access on MongoDB read models${url ? '' : ' (skipped: MONGODB_URL is not set)'}`, () => {
  const database = `expiry_${process.pid}_${Date.now()}`;
  afterAll(async () => {
    const client = await MongoClient.connect(url);
    await client.db(database).dropDatabase();
    await client.close();
  });

  it('keeps exact ends of derived grants along a random sequence', async () => {
    await randomSequenceWithEnds(11, await MongoDocumentStore.connect({ url, database }), 150);
  }, 300_000);
});
