import { startTestServer } from '../support/embedded-server';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { decisionLogSuite } from './support/decision-log-suite';

/**
 * The decision log with READ_MODEL_STORE=postgres (`scripts/test-servers.sh start` exports
 * POSTGRES_URL): its entries in the read models' schema's `decision_log`, the same API answers as on SQLite.
 */
const url = process.env.POSTGRES_URL ?? '';

if (url) {
  const database = postgresReadModelsDatabase(url, 'rebac_decision_logs');
  decisionLogSuite('decision logs, on PostgreSQL', () => startTestServer({ env: database.env('decisions') }));
} else {
  describe.skip('decision logs on PostgreSQL (skipped: POSTGRES_URL is not set)', () => {
    it('needs POSTGRES_URL', () => undefined);
  });
}
