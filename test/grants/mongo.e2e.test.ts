import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '../../shared/docstore/mongo-document-store';
import { GrantsHarness } from './support/harness';
import { Random } from './support/random';
import { createWorldSchema, randomCommand } from './support/random-world';
import { grantKeys, recomputeGrants, unsoundReasons } from './support/reference';

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
    const h = await new GrantsHarness(await MongoDocumentStore.connect({ url, database })).start();
    try {
      await createWorldSchema(h);
      const r = new Random(42);
      for (let step = 0; step < 150; step++) {
        await h.exec(randomCommand(r, await h.state()));
        if (step % 25 === 24) {
          await h.settle();
          const state = await h.state();
          const grants = await h.read.allGrants();
          expect({ step, grants: grantKeys(grants) }).toEqual({ step, grants: recomputeGrants(state) });
          expect(unsoundReasons(grants, state)).toEqual([]);
        }
      }
    } finally {
      await h.close();
    }
  }, 120_000);
});
