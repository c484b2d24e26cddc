import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { SqliteEventStore } from './sqlite-event-store';

const dirs = new Map<object, string>();
describeEventStoreContract('sqlite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'es-contract-'));
    const store = new SqliteEventStore({ path: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    dirs.set(store, dir);
    return store;
  },
  async dispose(store) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
});
