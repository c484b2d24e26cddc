import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDocumentStore } from '../../docstore/sqlite-document-store';
import type { DocumentStore } from '../../docstore/port';
import { describeGrantStoreContract } from '../../testing/grant-store-contract';

const dirs = new Map<object, string>();
const harness = {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'grant-store-'));
    const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
    dirs.set(store, dir);
    return store;
  },
  async dispose(store: DocumentStore) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
};
describeGrantStoreContract('sqlite', harness);

describe('SqliteGrantStore', () => {
  it('serves each of its reads from an index, without a sort where it gives an order: the primary key, or the holders index', async () => {
    const store = await harness.create();
    try {
      const db = new Database(join(dirs.get(store)!, 'rm.sqlite'), { readonly: true });
      const plan = (sql: string) =>
        (
          db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(
            ...sql
              .split('?')
              .slice(1)
              .map(() => 'x'),
          ) as Array<{ detail: string }>
        )
          .map((row) => row.detail)
          .join('; ');
      const primary = /SEARCH rm_grant_rows USING PRIMARY KEY \(id[ =>]/;
      const holders = /SEARCH rm_grant_rows USING (COVERING )?INDEX rm_grant_rows__holders \(environment_id=\? AND instance[=>]/;
      // get, byIds
      expect(plan('SELECT * FROM rm_grant_rows WHERE id = ?')).toMatch(primary);
      expect(plan('SELECT * FROM rm_grant_rows WHERE id IN (?, ?, ?)')).toMatch(primary);
      // userRange (narrowed, paged), countUserRange
      const range = plan(
        'SELECT * FROM rm_grant_rows WHERE id > ? AND id < ? AND role IN (?, ?) AND tenant IN (?) ORDER BY id LIMIT 10 OFFSET 2',
      );
      expect(range).toMatch(/SEARCH rm_grant_rows USING PRIMARY KEY \(id>\? AND id<\?\)/);
      expect(range).not.toMatch(/TEMP B-TREE/);
      expect(plan('SELECT COUNT(*) FROM (SELECT 1 FROM rm_grant_rows WHERE id > ? AND id < ? AND role IN (?) LIMIT 101)')).toMatch(
        /SEARCH rm_grant_rows USING PRIMARY KEY \(id>\? AND id<\?\)/,
      );
      // holders: after a user, for some users, narrowed
      for (const sql of [
        'SELECT * FROM rm_grant_rows WHERE environment_id = ? AND instance = ? ORDER BY user, role LIMIT 501',
        'SELECT * FROM rm_grant_rows WHERE environment_id = ? AND instance = ? AND user > ? AND role IN (?, ?) ORDER BY user, role LIMIT 100',
        'SELECT * FROM rm_grant_rows WHERE environment_id = ? AND instance = ? AND user IN (?, ?) ORDER BY user, role',
      ]) {
        expect(plan(sql)).toMatch(holders);
        expect(plan(sql)).not.toMatch(/TEMP B-TREE/);
      }
      // rolesOn (the checks' read): the index alone
      expect(
        plan(
          'SELECT id, role, expires_at FROM rm_grant_rows WHERE environment_id = ? AND instance = ? AND user = ? AND role IN (?, ?) ORDER BY role',
        ),
      ).toMatch(/USING COVERING INDEX rm_grant_rows__holders \(environment_id=\? AND instance=\? AND user=\? AND role=\?\)/);
      // userOn, onInstances, ofEnvironment
      expect(plan('SELECT * FROM rm_grant_rows WHERE environment_id = ? AND instance = ? AND user = ? AND role IN (?, ?)')).toMatch(
        /USING (COVERING )?INDEX rm_grant_rows__holders \(environment_id=\? AND instance=\? AND user=\?/,
      );
      expect(plan('SELECT * FROM rm_grant_rows WHERE environment_id = ? AND instance IN (?, ?) AND user = ?')).toMatch(holders);
      expect(plan('SELECT * FROM rm_grant_rows WHERE environment_id = ? AND instance IN (?, ?, ?) LIMIT 20001')).toMatch(holders);
      expect(plan('SELECT * FROM rm_grant_rows WHERE environment_id = ? ORDER BY id')).toMatch(
        /rm_grant_rows__holders \(environment_id=\?\)/,
      );
      // rules
      expect(plan('SELECT rules FROM rm_grant_rules WHERE environment_id = ?')).toMatch(/USING PRIMARY KEY \(environment_id=\?\)/);
      db.close();
    } finally {
      await harness.dispose(store);
    }
  });
});
