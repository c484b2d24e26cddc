import type { DocumentStore } from '../../shared/docstore/port';
import { PostgresDocumentStore } from '../../shared/docstore/postgres-document-store';
import { postgresReadModelsDatabase } from '../support/postgres-read-models';
import { auditLogOnEngineSuite } from './support/engine-suite';

/**
 * The audit log on PostgreSQL read models (`scripts/test-servers.sh start` exports POSTGRES_URL):
 * the index checks of the SQLite int test and the MongoDB e2e test through the port (ranges of
 * ids, both directions), then the service itself.
 */
const url = process.env.POSTGRES_URL ?? '';
const describeWithPostgres = url ? describe : describe.skip;

describeWithPostgres(`audit log on PostgreSQL read models${url ? '' : ' (skipped: POSTGRES_URL is not set)'}`, () => {
  const database = url ? postgresReadModelsDatabase(url, 'rebac_audit') : null;
  const stores: DocumentStore[] = [];
  // A schema per store: each starts empty.
  const open = async () => {
    const store = await PostgresDocumentStore.connect({ url: database!.url(), schema: `audit_${stores.length}` });
    stores.push(store);
    // The projection's view of it, as the runner gives it (transactions run there).
    return store.writerView();
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  auditLogOnEngineSuite(open, () => database!.env('audit_service'));
});
