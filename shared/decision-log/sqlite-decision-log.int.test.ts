import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDecisionLogContract } from '../testing/decision-log-contract';
import { SqliteDecisionLog } from './sqlite-decision-log';

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
