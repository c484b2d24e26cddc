import { PostgresDocumentStore } from '../../shared/docstore/postgres-document-store';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { GrantsHarness } from './support/harness';
import { Random } from './support/random';
import { createWorldSchema, randomCommand } from './support/random-world';
import { grantKeys, recomputeGrants, unsoundReasons } from './support/reference';

/**
 * The grants projection on the PostgreSQL read-model engine (`scripts/test-servers.sh start`
 * exports POSTGRES_URL): the same random sequence check as the SQLite int test and the MongoDB
 * e2e test, through the port only.
 */
const url = process.env.POSTGRES_URL ?? '';
// Reported as skipped without a server, so `npx jest test/grants` runs anywhere; .ci/e2e.sh sets it.
const describeWithPostgres = url ? describe : describe.skip;

describeWithPostgres(`derived grants on PostgreSQL read models${url ? '' : ' (skipped: POSTGRES_URL is not set)'}`, () => {
  const database = url ? postgresReadModelsDatabase(url, 'rebac_grants') : null;

  it('matches a from-scratch recomputation along a random sequence', async () => {
    const h = await new GrantsHarness(await PostgresDocumentStore.connect({ url: database!.url(), schema: 'grants' })).start();
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
