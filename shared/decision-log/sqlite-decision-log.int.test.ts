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
  it('reads an environment newest first from its index, a time range as a range of it, with no sort', () => {
    const dir = mkdtempSync(join(tmpdir(), 'decision-log-'));
    const path = join(dir, 'decision-log.sqlite');
    const store = new SqliteDecisionLog(path);
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Database = require('better-sqlite3') as typeof import('better-sqlite3');
      const db = new Database(path, { readonly: true });
      const plan = (where: string, index: string) =>
        (
          db
            .prepare(`EXPLAIN QUERY PLAN SELECT entry FROM decision_log INDEXED BY ${index} WHERE ${where} ORDER BY id DESC LIMIT 30`)
            .all() as Array<{ detail: string }>
        )
          .map((r) => r.detail)
          .join('; ');
      // Newest first straight from the index (no sort); a time range is a range of it.
      for (const [where, index] of [
        ["env = 'e' AND action = 'read'", 'decision_log_env'],
        ["env = 'e' AND user = 'a' AND decision = 0", 'decision_log_env'],
        ["env = 'e' AND id >= '0190' AND id < '0191'", 'decision_log_env'],
      ] as const) {
        expect(plan(where, index)).toMatch(new RegExp(`SEARCH decision_log USING INDEX ${index} \\(env=\\?`));
        if (where.includes('id >=')) expect(plan(where, index)).toMatch(/id>\? AND id<\?/);
        expect(plan(where, index)).not.toMatch(/TEMP B-TREE/);
      }
      db.close();
    } finally {
      void store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
