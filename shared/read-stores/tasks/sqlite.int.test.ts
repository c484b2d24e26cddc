import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDocumentStore } from '../../docstore/sqlite-document-store';
import type { DocumentStore } from '../../docstore/port';
import { describeTaskStoreContract } from '../../testing/task-store-contract';
import { readStoresOf } from '../port';

const dirs = new Map<object, string>();
const harness = {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'task-store-'));
    const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
    dirs.set(store, dir);
    return store;
  },
  async dispose(store: DocumentStore) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
};
describeTaskStoreContract('sqlite', harness);

describe('SqliteTaskStore', () => {
  it('serves each of its reads from an index: the primary key, or the partial index of processing tasks', async () => {
    const store = await harness.create();
    try {
      const db = new Database(join(dirs.get(store)!, 'rm.sqlite'), { readonly: true });
      const plan = (sql: string, ...params: unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail).join('; ');
      expect(plan('SELECT * FROM rm_tasks WHERE task_id = ?', 't1')).toMatch(/USING INDEX sqlite_autoindex_rm_tasks_1/);
      expect(
        plan("SELECT task_id FROM rm_tasks WHERE task_id IN (SELECT value FROM json_each(?)) AND status <> 'processing'", '[]'),
      ).toMatch(/USING INDEX sqlite_autoindex_rm_tasks_1/);
      expect(plan("SELECT COUNT(*) FROM rm_tasks WHERE status = 'processing'")).toMatch(/rm_tasks__processing/);
      db.close();
    } finally {
      await harness.dispose(store);
    }
  });

  it('reads through a replica of the file (another process of the one-process service)', async () => {
    const store = await harness.create();
    const replica = SqliteDocumentStore.replica(join(dirs.get(store)!, 'rm.sqlite'));
    try {
      const writer = store.writerView();
      await writer.transaction(() =>
        readStoresOf(writer).tasks.requested({
          id: 't1',
          task_id: 't1',
          type: 'environment_copy',
          status: 'processing',
          organization_id: 'o',
          project_id: 'p',
          source_environment: 's',
          source_environment_id: null,
          target_kind: 'existing',
          target_environment_id: null,
          scope: { facts: false },
          as_of: null,
          requested_at_position: 1,
          attempts: 0,
          progress: { source_events_total: 0, source_events_read: 0, events_copied: 0 },
          result: null,
          error: null,
          created_at: 'a',
          updated_at: 'a',
          started_at: null,
          finished_at: null,
        }),
      );
      expect(await readStoresOf(replica).tasks.countProcessing()).toBe(1);
    } finally {
      await replica.close();
      await harness.dispose(store);
    }
  });
});
