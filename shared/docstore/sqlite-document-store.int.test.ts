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

describe('SqliteDocumentStore indexes', () => {
  it('creates the declared indexes and drops the ones it made that are no longer declared', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-indexes-'));
    const path = join(dir, 'rm.sqlite');
    const indexesOf = (store: SqliteDocumentStore) =>
      (store.writeConnection().prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_items' AND name LIKE 'rm\\_items\\_\\_%' ESCAPE '\\' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    try {
      const before = new SqliteDocumentStore(path);
      before.collection({ name: 'items', fields: ['a', 'b'], indexes: [['a'], ['a', 'b']] });
      expect(indexesOf(before)).toEqual(['rm_items__a', 'rm_items__a_b']);
      await before.close();

      const after = new SqliteDocumentStore(path);
      after.collection({ name: 'items', fields: ['a', 'b'], indexes: [['b', 'a']] });
      expect(indexesOf(after)).toEqual(['rm_items__b_a']);
      await after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
