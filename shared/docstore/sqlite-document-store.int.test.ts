import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDocumentStoreContract } from '../testing/document-store-contract';
import { describeFindFields } from '../testing/find-fields-contract';
import type { DocumentStore } from './port';
import { SqliteDocumentStore } from './sqlite-document-store';

const dirs = new Map<object, string>();
const harness = {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'ds-contract-'));
    const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
    dirs.set(store, dir);
    return store;
  },
  async dispose(store: DocumentStore) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
};
describeDocumentStoreContract('sqlite', harness);
describeFindFields('sqlite', harness);

describe('SqliteDocumentStore views', () => {
  it('runs transactions only on its writer view: the store itself refuses them, since its writes would wait for their end', async () => {
    const store = await harness.create();
    try {
      const spec = { name: 'items', fields: [], indexes: [] };
      const ran: string[] = [];
      await expect(store.transaction(async () => void ran.push('work'))).rejects.toThrow(/writerView/);
      expect(ran).toEqual([]);
      // One table for both views, defined once.
      await store.writerView().transaction(() => store.writerView().collection<{ id: string }>(spec).put({ id: 'a' }));
      expect(await store.collection<{ id: string }>(spec).get('a')).toEqual({ id: 'a' });
    } finally {
      await harness.dispose(store);
    }
  });

  it('has no writer view in a replica, which only reads', async () => {
    const store = await harness.create();
    try {
      const replica = SqliteDocumentStore.replica(join(dirs.get(store)!, 'rm.sqlite'));
      expect(() => replica.writerView()).toThrow(/replica does not write/);
      await replica.close();
    } finally {
      await harness.dispose(store);
    }
  });
});

describe('SqliteDocumentStore find limits', () => {
  it('writes a limit into the SQL only when it is a non-negative integer', async () => {
    const store = await harness.create();
    try {
      const items = store.collection<{ id: string }>({ name: 'items', fields: [], indexes: [] });
      await items.putMany([{ id: 'a' }, { id: 'b' }]);
      expect(await items.find({}, { sortBy: 'id', limit: 1 })).toEqual([{ id: 'a' }]);
      for (const limit of [1.5, -1, Number.NaN, '1; DROP TABLE rm_items' as unknown as number])
        await expect(items.find({}, { limit })).rejects.toThrow(/limit must be a non-negative integer/);
      expect(await items.count({})).toBe(2);
    } finally {
      await harness.dispose(store);
    }
  });
});

describe('SqliteDocumentStore indexes', () => {
  it('creates the declared indexes and drops the ones it made that are no longer declared', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-indexes-'));
    const path = join(dir, 'rm.sqlite');
    const indexesOf = (store: SqliteDocumentStore) =>
      (
        store
          .writeConnection()
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_items' AND name LIKE 'rm\\_items\\_\\_%' ESCAPE '\\' ORDER BY name",
          )
          .all() as Array<{ name: string }>
      ).map((r) => r.name);
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

describe('SqliteDocumentStore clustered collections', () => {
  it('keeps a clustered collection in its key tree alone (WITHOUT ROWID), read and written as any other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-clustered-'));
    try {
      const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
      const keyed = store.collection<{ id: string; e: number }>({ name: 'keyed', fields: [], indexes: [], compact: true, clustered: true });
      store.collection<{ id: string; e: number }>({ name: 'plain', fields: [], indexes: [] });
      const sql = (table: string) =>
        (store.writeConnection().prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string }).sql;
      expect(sql('rm_keyed')).toMatch(/WITHOUT ROWID$/);
      expect(sql('rm_plain')).not.toMatch(/WITHOUT ROWID/);
      await keyed.putMany([
        { id: 'b', e: 2 },
        { id: 'a', e: 1 },
        { id: 'c', e: 3 },
      ]);
      await keyed.put({ id: 'b', e: 20 });
      expect(await keyed.find({ id: { $gt: 'a' } }, { sortBy: 'id', descending: true })).toEqual([
        { id: 'c', e: 3 },
        { id: 'b', e: 20 },
      ]);
      expect(await keyed.get('a')).toEqual({ id: 'a', e: 1 });
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteDocumentStore compact collections', () => {
  interface Grant {
    id: string;
    env: string;
    user: string;
    from: string | null;
    reason: { kind: string };
    at: string;
  }
  const spec = { name: 'grants', fields: ['env', 'user', 'from'], indexes: [['env', 'user']] };
  const grant = (id: string, from: string | null): Grant => ({
    id,
    env: 'e',
    user: 'alice',
    from,
    reason: { kind: 'derivation' },
    at: 't',
  });

  it('stores the declared fields once and reads whole documents back, key order included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-compact-'));
    const path = join(dir, 'rm.sqlite');
    try {
      // A row written before the collection was compact (the whole document as JSON) reads the same.
      const before = new SqliteDocumentStore(path);
      await before.collection<Grant>(spec).put(grant('old', 'root'));
      await before.close();

      const store = new SqliteDocumentStore(path);
      const grants = store.collection<Grant>({ ...spec, compact: true });
      await grants.putMany([grant('b', null), grant('a', 'b')]);
      expect(await grants.insertMissing([grant('a', 'x'), grant('c', 'a')])).toEqual([grant('c', 'a')]);
      const stored = store.writeConnection().prepare("SELECT doc FROM rm_grants WHERE id = 'a'").get() as { doc: string };
      expect(JSON.parse(stored.doc)).toEqual({ reason: { kind: 'derivation' }, at: 't' });

      const all = await grants.find({ env: 'e', user: 'alice' }, { sortBy: 'id' });
      expect(all).toEqual([grant('a', 'b'), grant('b', null), grant('c', 'a'), grant('old', 'root')]);
      expect(all.map((g) => JSON.stringify(g))).toEqual(all.map((g) => JSON.stringify(grant(g.id, g.from))));
      expect(await grants.get('b')).toEqual(grant('b', null));
      expect(await grants.get('old')).toEqual(grant('old', 'root'));
      expect(await grants.get('missing')).toBeNull();
      expect(await grants.find({ from: 'b' }, { fields: ['user'] })).toEqual([{ id: 'a', user: 'alice' }]);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a field that reads as a number back as the string it was (its column is its only copy)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-compact-'));
    try {
      const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
      const grants = store.collection<Grant>({ ...spec, compact: true });
      await grants.putMany([
        { ...grant('a', null), user: '007' },
        { ...grant('b', null), user: '7' },
      ]);
      expect((await grants.get('a'))?.user).toBe('007');
      expect((await grants.find({ env: 'e', user: '007' })).map((g) => g.id)).toEqual(['a']);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteDocumentStore reads by id', () => {
  it('reads through the id index when told (byId), where it would otherwise read an equality through another index and sort', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ds-by-id-'));
    try {
      const store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
      const items = store.collection<{ id: string; env: string; n: number }>({
        name: 'items',
        fields: ['env', 'n'],
        indexes: [['env', 'n']],
      });
      await items.putMany(Array.from({ length: 50 }, (_, i) => ({ id: `u${i % 5}:${String(i).padStart(2, '0')}`, env: 'e', n: i })));
      const statement = jest.spyOn(store, 'statement');
      const planOf = (sql: string) =>
        (
          store
            .connection()
            .prepare(`EXPLAIN QUERY PLAN ${sql}`)
            .all(...(sql.match(/\?/g) ?? []).map(() => 'x')) as Array<{ detail: string }>
        )
          .map((row) => row.detail)
          .join('; ');
      const read = async (byId: boolean) => {
        statement.mockClear();
        const found = await items.find({ env: 'e', id: { $gt: 'u1:', $lt: 'u1;' } }, { sortBy: 'id', limit: 3, byId });
        return { ids: found.map((d) => d.id), plan: planOf(statement.mock.calls[0]![0]) };
      };
      const plain = await read(false);
      const byId = await read(true);
      expect(byId.ids).toEqual(['u1:01', 'u1:06', 'u1:11']);
      expect(plain.ids).toEqual(byId.ids);
      expect(plain.plan).toMatch(/INDEX rm_items__env_n/);
      expect(byId.plan).toMatch(/INDEX sqlite_autoindex_rm_items_1 \(id>\? AND id<\?\)/);
      expect(byId.plan).not.toMatch(/TEMP B-TREE/);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
