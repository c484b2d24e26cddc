import { PostgresDocumentStore } from '../../shared/docstore/postgres-document-store';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { grantsMatchRecomputation } from './support/engine-sequence';

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
    await grantsMatchRecomputation(await PostgresDocumentStore.connect({ url: database!.url(), schema: 'grants' }));
  }, 120_000);
});
