import { PostgresDocumentStore } from '../../shared/docstore/postgres-document-store';
import { startTestServer } from '../support/embedded-server';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { asOfAndCopySuite } from './support/as-of-and-copy-suite';
import { exactChecksSuite } from './support/exact-checks-suite';
import { expiryEventsSuite } from './support/expiry-events-suite';
import { guardedAtTheEndSuite } from './support/guarded-at-the-end-suite';
import { randomSequenceWithEnds } from './support/random-ends';
import type { StartExpiryServer } from './support/start-server';
import { writeSideSuite } from './support/write-side-suite';

/**
 * Ends on the PostgreSQL read-model engine (`scripts/test-servers.sh start` exports POSTGRES_URL):
 * the HTTP suites of the SQLite int tests (exact checks, expiry events, as_of and copy, the write
 * side), and the random sequence with ends of randomized-ends.int.test.ts through the port only,
 * as the MongoDB e2e test runs them.
 */
const url = process.env.POSTGRES_URL ?? '';

if (url) {
  const database = postgresReadModelsDatabase(url, 'rebac_expiry');
  // A schema per suite and per read-models name: each start with a new data dir is a fresh event log.
  const onPostgres =
    (suite: string): StartExpiryServer =>
    (options, readModels = 'main') =>
      startTestServer({ ...options, env: { ...options.env, ...database.env(`${suite}_${readModels}`) } });
  exactChecksSuite('expires_at: checks exact to the millisecond, on PostgreSQL read models', onPostgres('checks'));
  expiryEventsSuite('expiry events, on PostgreSQL read models', onPostgres('events'));
  asOfAndCopySuite('expires_at: as_of and environment copy, on PostgreSQL read models', onPostgres('asof'));
  writeSideSuite('expires_at: the write side, on PostgreSQL read models', onPostgres('write'));
  guardedAtTheEndSuite('expires_at: a guarded role given back at the end, on PostgreSQL read models', onPostgres('guarded'));

  describe('expiring access on PostgreSQL read models', () => {
    it('keeps exact ends of derived grants along a random sequence', async () => {
      await randomSequenceWithEnds(11, await PostgresDocumentStore.connect({ url: database.url(), schema: 'expiry' }), 150);
    }, 300_000);
  });
} else {
  // Reported as skipped without a server, so `npx jest test/expiry` runs anywhere; .ci/e2e.sh sets it.
  describe.skip('expiring access on PostgreSQL read models (skipped: POSTGRES_URL is not set)', () => {
    it('needs POSTGRES_URL', () => undefined);
  });
}
