import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDecisionLogContract } from '../testing/decision-log-contract';
import { SqliteDecisionLog } from './sqlite-decision-log';
import { ThreadedSqliteDecisionLog } from './threaded-sqlite-decision-log';

const dirs = new Map<object, string>();
describeDecisionLogContract('sqlite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'decision-log-'));
    const store = new SqliteDecisionLog(join(dir, 'decision-log.sqlite'));
    dirs.set(store, dir);
    return store;
  },
  async dispose(store) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
});

describeDecisionLogContract('sqlite, writes on a thread', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'decision-log-'));
    const store = new ThreadedSqliteDecisionLog(join(dir, 'decision-log.sqlite'));
    dirs.set(store, dir);
    return store;
  },
  async dispose(store) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
});

describe('SqliteDecisionLog', () => {
  it('serves each filter from an index that leads with the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'decision-log-'));
    const path = join(dir, 'decision-log.sqlite');
    const store = new SqliteDecisionLog(path);
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Database = require('better-sqlite3') as typeof import('better-sqlite3');
      const db = new Database(path, { readonly: true });
      const plan = (where: string) =>
        (
          db.prepare(`EXPLAIN QUERY PLAN SELECT entry FROM decision_log WHERE ${where} ORDER BY ts DESC LIMIT 30`).all() as Array<{
            detail: string;
          }>
        )
          .map((r) => r.detail)
          .join('; ');
      expect(plan("env = 'e'")).toMatch(/USING INDEX decision_log_env_ts/);
      expect(plan("env = 'e' AND user IN ('a')")).toMatch(/USING INDEX decision_log_env_user_ts/);
      expect(plan("env = 'e' AND decision = 0")).toMatch(/USING INDEX decision_log_env_decision_ts/);
      expect(plan("env = 'e' AND resource_type = 'document'")).toMatch(/USING INDEX decision_log_env_resource_type_ts/);
      db.close();
    } finally {
      void store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
