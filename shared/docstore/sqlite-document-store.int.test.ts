import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDocumentStoreContract } from '../testing/document-store-contract';
import { describeFindFields } from './find-fields-contract';
import { SqliteDocumentStore } from './sqlite-document-store';

const dirs = new Map<object, string>();
describeDocumentStoreContract('sqlite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'ds-contract-'));
    const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
    dirs.set(store, dir);
    return store;
  },
  async dispose(store) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
});

describeFindFields('sqlite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'ds-fields-'));
    const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
    dirs.set(store, dir);
    return store;
  },
  async dispose(store) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
});
