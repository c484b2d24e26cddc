import { PostgresDocumentStore } from '../../shared/docstore/postgres-document-store';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { randomSequenceWithEnds } from './support/random-ends';

/**
 * Ends on the PostgreSQL read-model engine (`scripts/test-servers.sh start` exports POSTGRES_URL):
 * the random sequence with ends of randomized-ends.int.test.ts, through the port only, as the
 * MongoDB e2e test runs it.
 */
const url = process.env.POSTGRES_URL ?? '';
// Reported as skipped without a server, so `npx jest test/expiry` runs anywhere; .ci/e2e.sh sets it.
const describeWithPostgres = url ? describe : describe.skip;

describeWithPostgres(`expiring access on PostgreSQL read models${url ? '' : ' (skipped: POSTGRES_URL is not set)'}`, () => {
  const database = url ? postgresReadModelsDatabase(url, 'rebac_expiry') : null;

  it('keeps exact ends of derived grants along a random sequence', async () => {
    await randomSequenceWithEnds(11, await PostgresDocumentStore.connect({ url: database!.url(), schema: 'expiry' }), 150);
  }, 300_000);
});
