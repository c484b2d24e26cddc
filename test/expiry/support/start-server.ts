import type { ManualClock } from '../../../shared/clock';
import type { TestServer } from '../../support/embedded-server';

/** What an expiry suite asks of a start: the test's clock, its settings, and a data dir to restart on. */
export interface ExpiryServerOptions {
  clock: ManualClock;
  env?: Record<string, string>;
  dataDir?: string;
}

/**
 * Starts the service for an expiry suite on one read-model engine (`startTestServer` on SQLite;
 * test/expiry/mongo.e2e.test.ts and postgres.e2e.test.ts add their engine's settings). `readModels`
 * names the server's read models within the suite: a new name is a fresh database (MongoDB) or
 * schema (PostgreSQL), since each start with a new data dir begins a fresh event log; a restart on
 * the same data dir passes the same name, so its read models are the ones it left. On SQLite the
 * read models live in the data dir and the name is not needed.
 */
export type StartExpiryServer = (options: ExpiryServerOptions, readModels?: string) => Promise<TestServer>;
