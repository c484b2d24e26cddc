import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import { auditLogProjection } from '../../projection-service/audit/audit-projection';
import { checkRandomQueries, checkReplaysMatchOnePass, index, randomLog } from './support/index-checks';

/**
 * The index against the obvious answer: a random log of several environments
 * and an organisation, indexed in random batches, queried with random filters,
 * ranges, orders and page sizes, each compared with filtering the log in memory.
 * And the projection's idempotency: a log indexed with crashes and replays (an
 * engine without transactions) ends as the same documents as a clean pass.
 * (test/audit/audit-log.e2e.test.ts runs the same on MongoDB.)
 */
describe('audit-log index on SQLite', () => {
  let dir: string;
  const stores: SqliteDocumentStore[] = [];
  const open = async () => {
    const store = new SqliteDocumentStore(join(dir, `rm-${stores.length}.sqlite`));
    stores.push(store);
    // The projection's view of it, as the runner gives it (transactions run there).
    return store.writerView();
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-index-'));
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const log = randomLog(7, 3000);

  it('is the same after crashes and replays as after one clean pass', async () => {
    await checkReplaysMatchOnePass(open, log);
  });

  it('answers random filters, ranges, orders and pages as filtering the log would', async () => {
    const store = await open();
    const projection = auditLogProjection(store);
    for (let i = 0; i < log.length; i += 500) await index(projection, log.slice(i, i + 500), store);
    await checkRandomQueries(store, log, 150);
  });
});
