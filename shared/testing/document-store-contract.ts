import type { Collection, CollectionSpec, DocumentStore } from '../docstore/port';

export interface DocumentStoreHarness {
  /** A fresh, empty store. */
  create(): Promise<DocumentStore>;
  dispose?(store: DocumentStore): Promise<void>;
}

interface Item {
  id: string;
  env: string;
  kind: string;
  rank: number;
  parent: string | null;
  payload: { nested: string[] };
}

const spec: CollectionSpec = { name: 'contract_items', fields: ['env', 'kind', 'rank', 'parent'], indexes: [['env', 'kind'], ['parent']] };
const item = (id: string, env: string, kind: string, rank = 0, parent: string | null = null): Item => ({
  id,
  env,
  kind,
  rank,
  parent,
  payload: { nested: [id] },
});

/** The behaviour every DocumentStore (read models + checkpoints) adapter must have. */
export function describeDocumentStoreContract(name: string, harness: DocumentStoreHarness): void {
  describe(`DocumentStore contract: ${name}`, () => {
    let store: DocumentStore;
    let items: Collection<Item>;
    beforeEach(async () => {
      store = await harness.create();
      items = store.collection<Item>(spec);
    });
    afterEach(async () => {
      await harness.dispose?.(store);
    });

    it('puts and gets a document by id; put replaces', async () => {
      await items.put(item('a', 'e1', 'x'));
      expect(await items.get('a')).toEqual(item('a', 'e1', 'x'));
      await items.put(item('a', 'e1', 'y', 3));
      expect(await items.get('a')).toEqual(item('a', 'e1', 'y', 3));
      expect(await items.get('missing')).toBeNull();
    });

    it('finds by equality, $in and null on declared fields, with skip and limit', async () => {
      await items.putMany([item('a', 'e1', 'x', 1), item('b', 'e1', 'y', 2, 'a'), item('c', 'e1', 'x', 3, 'a'), item('d', 'e2', 'x', 4)]);
      expect((await items.find({ env: 'e1', kind: 'x' })).map((i) => i.id).sort()).toEqual(['a', 'c']);
      expect((await items.find({ kind: { $in: ['y', 'z'] } })).map((i) => i.id)).toEqual(['b']);
      expect((await items.find({ env: 'e1', parent: null })).map((i) => i.id)).toEqual(['a']);
      expect(await items.find({ kind: { $in: [] } })).toEqual([]);
      expect((await items.find({ env: 'e1' }, { sortBy: 'rank', skip: 1, limit: 1 })).map((i) => i.id)).toEqual(['b']);
      expect((await items.find({ env: 'e1' }, { sortBy: 'rank', skip: 1 })).map((i) => i.id)).toEqual(['b', 'c']);
      expect((await items.find({ env: 'e1' }, { sortBy: 'rank', limit: 2 })).map((i) => i.id)).toEqual(['a', 'b']);
      expect(await items.find({ env: 'e1' }, { limit: 0 })).toEqual([]);
      expect((await items.findOne({ env: 'e2' }))?.id).toBe('d');
      expect(await items.findOne({ env: 'e3' })).toBeNull();
      expect(await items.count({ env: 'e1' })).toBe(3);
      expect(await items.count({})).toBe(4);
    });

    it('keeps a string that reads as a number a string: "01", "1", "1.0" and "1e0" are four values', async () => {
      const kinds = ['1', '01', '1.0', '1e0', '0001'];
      await items.putMany(kinds.map((kind, i) => item(`n${i}`, 'e1', kind)));
      for (const [i, kind] of kinds.entries()) {
        expect((await items.find({ kind })).map((found) => found.id)).toEqual([`n${i}`]);
        expect((await items.get(`n${i}`))?.kind).toBe(kind);
      }
      expect((await items.find({ kind: { $in: ['01', '1e0'] } })).map((found) => found.id).sort()).toEqual(['n1', 'n3']);
    });

    it('finds values greater than a bound ($gt), for keyset pagination', async () => {
      await items.putMany([item('a', 'e1', 'x', 1), item('b', 'e1', 'y', 2), item('c', 'e1', 'z', 3), item('d', 'e2', 'z', 4)]);
      expect((await items.find({ env: 'e1', kind: { $gt: 'x' } }, { sortBy: 'kind' })).map((i) => i.id)).toEqual(['b', 'c']);
      expect((await items.find({ env: 'e1', rank: { $gt: 1 } }, { sortBy: 'rank', limit: 1 })).map((i) => i.id)).toEqual(['b']);
      expect(await items.count({ kind: { $gt: 'z' } })).toBe(0);
    });

    it('finds values at most a bound ($lte), with $gt on another field (a validity interval)', async () => {
      const versions = [
        item('v1', 'e1', 'x', 1, '5'),
        item('v2', 'e1', 'x', 5, '9'),
        item('v3', 'e1', 'x', 9, null),
        item('w', 'e2', 'x', 1),
      ];
      await items.putMany(versions);
      const validAt = (p: number) => items.find({ env: 'e1', rank: { $lte: p }, parent: { $gt: String(p) } }, { sortBy: 'rank' });
      expect((await validAt(4)).map((i) => i.id)).toEqual(['v1']);
      expect((await validAt(5)).map((i) => i.id)).toEqual(['v2']);
      expect((await items.find({ env: 'e1', rank: { $lte: 5 } }, { sortBy: 'rank' })).map((i) => i.id)).toEqual(['v1', 'v2']);
      expect(await items.count({ rank: { $lte: 0 } })).toBe(0);
    });

    it('finds within ranges ($gt, $gte, $lt, $lte, combined), also on id, sorted either way', async () => {
      await items.putMany([item('a', 'e1', 'x', 1), item('b', 'e1', 'y', 2), item('c', 'e1', 'z', 3), item('d', 'e2', 'z', 4)]);
      const ids = (found: Item[]) => found.map((i) => i.id);
      expect(ids(await items.find({ rank: { $gte: 2, $lt: 4 } }, { sortBy: 'rank' }))).toEqual(['b', 'c']);
      expect(ids(await items.find({ rank: { $gt: 1, $lte: 4 } }, { sortBy: 'rank', descending: true }))).toEqual(['d', 'c', 'b']);
      expect(ids(await items.find({ env: 'e1', rank: { $lte: 2 } }, { sortBy: 'rank', descending: true, limit: 1 }))).toEqual(['b']);
      expect(ids(await items.find({ id: { $gt: 'a', $lt: 'd' } }, { sortBy: 'id' }))).toEqual(['b', 'c']);
      expect(ids(await items.find({ id: { $lte: 'c' } }, { sortBy: 'id', descending: true, limit: 2 }))).toEqual(['c', 'b']);
      expect(ids(await items.find({ kind: { $gte: 'y' } }, { sortBy: 'kind', descending: true }))).toEqual(['d', 'c', 'b']);
      // Ties on the sort field are broken by id, in the same direction.
      expect(ids(await items.find({ kind: 'z' }, { sortBy: 'kind', descending: true }))).toEqual(['d', 'c']);
      expect(ids(await items.find({ rank: {} }, { sortBy: 'rank' }))).toEqual(['a', 'b', 'c', 'd']);
      expect(await items.count({ rank: { $gt: 4 } })).toBe(0);
      expect(await items.deleteMany({ rank: { $gte: 3 } })).toBe(2);
      expect(ids(await items.find({}, { sortBy: 'id' }))).toEqual(['a', 'b']);
    });

    it('compares string ranges by bytes, so fixed-width keys sort as their numbers', async () => {
      const key = (n: number) => `e1|${n.toString(36).padStart(11, '0')}`;
      await items.putMany([5, 40, 1000, 36 ** 3].map((n) => item(key(n), 'e1', 'x', n)));
      await items.put(item('e1~', 'e1', 'x'));
      await items.put(item('e1|é', 'e1', 'x'));
      const found = await items.find({ id: { $gt: 'e1|', $lt: 'e1}' } }, { sortBy: 'id' });
      expect(found.map((i) => i.rank)).toEqual([5, 40, 1000, 36 ** 3, 0]);
      const below = await items.find({ id: { $gte: 'e1|', $lte: key(999) } }, { sortBy: 'id', descending: true, limit: 1 });
      expect(below.map((i) => i.rank)).toEqual([40]);
    });

    it('replaces many stored documents in one putMany', async () => {
      const many = Array.from({ length: 250 }, (_, i) => item(`m${String(i).padStart(3, '0')}`, 'e1', 'x', i));
      await items.putMany(many);
      await items.putMany(many.map((m) => ({ ...m, kind: 'y' })));
      const stored = await items.find({ env: 'e1' }, { sortBy: 'id' });
      expect(stored).toHaveLength(250);
      expect(stored.every((m) => m.kind === 'y')).toBe(true);
    }, 60_000);

    it('refuses filters on undeclared fields', async () => {
      await expect(items.find({ payload: 'x' })).rejects.toThrow(/not declared/);
    });

    it('deletes by id and by filter, idempotently', async () => {
      await items.putMany([item('a', 'e1', 'x'), item('b', 'e1', 'y'), item('c', 'e2', 'x')]);
      await items.delete('a');
      await items.delete('a');
      expect(await items.get('a')).toBeNull();
      expect(await items.deleteMany({ env: 'e1' })).toBe(1);
      expect((await items.find({})).map((i) => i.id)).toEqual(['c']);
    });

    it('stores checkpoints by compare-and-set', async () => {
      expect(await store.loadCheckpoint('p')).toBeNull();
      expect(await store.saveCheckpoint('p', null, 10)).toEqual({ ok: true });
      expect(await store.saveCheckpoint('p', null, 11)).toEqual({ ok: false, reason: 'MISMATCH', current: 10 });
      expect(await store.saveCheckpoint('p', 9, 11)).toEqual({ ok: false, reason: 'MISMATCH', current: 10 });
      expect(await store.saveCheckpoint('p', 10, 12)).toEqual({ ok: true });
      expect(await store.loadCheckpoint('p')).toBe(12);
    });

    it('runs work in a transaction on its writer view: committed on success, rolled back on failure where atomic', async () => {
      const writer = store.writerView();
      const projected = writer.collection<Item>(spec);
      await writer.transaction(async () => {
        await projected.put(item('a', 'e1', 'x'));
      });
      expect(await items.get('a')).not.toBeNull();
      await expect(
        writer.transaction(async () => {
          await projected.put(item('b', 'e1', 'x'));
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      if (store.atomicTransactions) expect(await items.get('b')).toBeNull();
      expect(writer.writerView()).toBe(writer);
    });

    it('shows an open transaction its own writes, and the store only what was committed', async () => {
      const writer = store.writerView();
      const projected = writer.collection<Item>(spec);
      let resume!: () => void;
      const resumed = new Promise<void>((resolve) => (resume = resolve));
      const seenInside: Array<Item | null> = [];
      const open = writer.transaction(async () => {
        await projected.put(item('new', 'e1', 'x'));
        seenInside.push(await projected.get('new'));
        await resumed;
      });
      await new Promise((resolve) => setImmediate(resolve));
      const seenOutside = await items.get('new');
      resume();
      await open;
      expect(seenInside[0]?.id).toBe('new');
      if (store.atomicTransactions) expect(seenOutside).toBeNull();
      expect((await items.get('new'))?.id).toBe('new');
    });

    it('keeps a write made elsewhere while a transaction is open out of it: a failed transaction does not take it along', async () => {
      const writer = store.writerView();
      const projected = writer.collection<Item>(spec);
      let resume!: () => void;
      const resumed = new Promise<void>((resolve) => (resume = resolve));
      const failing = writer.transaction(async () => {
        await projected.put(item('inside', 'e1', 'x'));
        // A projection batch gives the event loop back with its transaction open.
        await resumed;
        throw new Error('batch failed');
      });
      await new Promise((resolve) => setImmediate(resolve));
      // Elsewhere meanwhile (the task relay saving its checkpoint, say).
      const elsewhere = Promise.all([items.put(item('outside', 'e2', 'y')), store.saveCheckpoint('relay', null, 7)]);
      await new Promise((resolve) => setImmediate(resolve));
      resume();
      await expect(failing).rejects.toThrow('batch failed');
      await elsewhere;
      expect(await items.get('outside')).not.toBeNull();
      expect(await store.loadCheckpoint('relay')).toBe(7);
      if (store.atomicTransactions) expect(await items.get('inside')).toBeNull();
    });

    it('drops every collection and checkpoint', async () => {
      await items.put(item('a', 'e1', 'x'));
      await store.saveCheckpoint('p', null, 5);
      await store.dropAll();
      expect(await store.collection<Item>(spec).count({})).toBe(0);
      expect(await store.loadCheckpoint('p')).toBeNull();
    });
  });
}
