import { startTestServer } from '../support/embedded-server';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { asOfCheckSuite } from './support/as-of-check-suite';
import { asOfReadSuite } from './support/as-of-read-suite';
import { decisionHistorySuite } from './support/decision-history-suite';

/**
 * Time travel on the PostgreSQL read-model engine (`scripts/test-servers.sh start` exports
 * POSTGRES_URL): the same as_of checks, receipts, reads and decision histories as the SQLite int
 * tests and the MongoDB e2e test, the history read model going through the document-store port only.
 */
const url = process.env.POSTGRES_URL ?? '';

if (url) {
  const database = postgresReadModelsDatabase(url, 'rebac_time_travel');
  // One schema per suite: each starts its own service on a fresh event log.
  const onPostgres = (schema: string) => () => startTestServer({ env: database.env(schema) });
  asOfCheckSuite('checks as of a past position, on PostgreSQL read models', onPostgres('checks'));
  asOfReadSuite('reads as of a past position, on PostgreSQL read models', onPostgres('reads'));
  decisionHistorySuite('the history of a decision, on PostgreSQL read models', onPostgres('history'));
} else {
  // Reported as skipped without a server, as the other real-server suites are; .ci/e2e.sh sets it.
  describe.skip('time travel on PostgreSQL read models (skipped: POSTGRES_URL is not set)', () => {
    it('needs POSTGRES_URL', () => undefined);
  });
}
