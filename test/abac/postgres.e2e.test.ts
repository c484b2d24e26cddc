import { startTestServer } from '../support/embedded-server';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { abacCheckSuite } from './support/abac-check-suite';

/**
 * Set rules on the PostgreSQL read-model engine (`scripts/test-servers.sh start` exports
 * POSTGRES_URL): the same checks, lists and histories as the SQLite int test, the condition sets
 * and set rules read models going through the document-store port only.
 */
const url = process.env.POSTGRES_URL ?? '';

if (url) {
  const database = postgresReadModelsDatabase(url, 'rebac_abac');
  abacCheckSuite('checks evaluate set rules, on PostgreSQL read models', () => startTestServer({ env: database.env('abac') }));
} else {
  // Reported as skipped without a server, as the other real-server suites are; .ci/e2e.sh sets it.
  describe.skip('ABAC on PostgreSQL read models (skipped: POSTGRES_URL is not set)', () => {
    it('needs POSTGRES_URL', () => undefined);
  });
}
