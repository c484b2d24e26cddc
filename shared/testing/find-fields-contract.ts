import type { CollectionSpec, DocumentStore } from '../docstore/port';

/**
 * What the projections' hot paths added to the port — `find` with `fields`
 * (reading a few declared columns instead of whole documents) and
 * `insertMissing` — for every adapter: run next to the shared contract suite,
 * which predates them. Call inside a test file with a fresh-store harness.
 */
export function describeFindFields(
  name: string,
  harness: { create(): Promise<DocumentStore>; dispose(store: DocumentStore): Promise<void> },
): void {
  describe(`DocumentStore find with fields, insertMissing: ${name}`, () => {
    const spec: CollectionSpec = {
      name: 'edges',
      fields: ['environment_id', 'subject', 'object', 'weight'],
      indexes: [['environment_id', 'subject', 'object']],
    };
    let store: DocumentStore;
    beforeEach(async () => {
      store = await harness.create();
    });
    afterEach(async () => harness.dispose(store));

    it('returns id and the asked fields only, filtered, sorted and limited as a whole-document find', async () => {
      const edges = store.collection<{
        id: string;
        environment_id: string;
        subject: string;
        object: string;
        weight: number | null;
        note: string;
      }>(spec);
      await edges.putMany([
        { id: 'e3', environment_id: 'env', subject: 'folder:a', object: 'doc:3', weight: 3, note: 'not asked' },
        { id: 'e1', environment_id: 'env', subject: 'folder:a', object: 'doc:1', weight: null, note: 'not asked' },
        { id: 'e2', environment_id: 'env', subject: 'folder:a', object: 'doc:2', weight: 2, note: 'not asked' },
        { id: 'e4', environment_id: 'other', subject: 'folder:a', object: 'doc:0', weight: 1, note: 'not asked' },
      ]);
      const page = await edges.find(
        { environment_id: 'env', subject: 'folder:a', object: { $gt: 'doc:1' } },
        { sortBy: 'object', limit: 5, fields: ['object', 'weight'] },
      );
      expect(page).toEqual([
        { id: 'e2', object: 'doc:2', weight: 2 },
        { id: 'e3', object: 'doc:3', weight: 3 },
      ]);
      const all = await edges.find({ environment_id: 'env', subject: { $in: ['folder:a'] } }, { sortBy: 'object', fields: ['weight'] });
      expect(all).toEqual([
        { id: 'e1', weight: null },
        { id: 'e2', weight: 2 },
        { id: 'e3', weight: 3 },
      ]);
      // No fields: the ids alone.
      expect(await edges.find({ environment_id: 'env' }, { sortBy: 'id', limit: 2, fields: [] })).toEqual([{ id: 'e1' }, { id: 'e2' }]);
    });

    it('insertMissing inserts only absent ids, leaves stored documents as they are, and returns what it inserted', async () => {
      const items = store.collection<{
        id: string;
        environment_id: string;
        subject: string;
        object: string;
        weight: number | null;
        note: string;
      }>(spec);
      const doc = (id: string, note: string) => ({ id, environment_id: 'env', subject: 's', object: id, weight: 1, note });
      await items.put(doc('b', 'stored'));
      const inserted = await items.insertMissing([doc('a', 'new'), doc('b', 'ignored'), doc('c', 'new'), doc('a', 'repeated')]);
      expect(inserted).toEqual([doc('a', 'new'), doc('c', 'new')]);
      expect(await items.get('a')).toEqual(doc('a', 'new'));
      expect(await items.get('b')).toEqual(doc('b', 'stored'));
      expect(await items.find({ environment_id: 'env', subject: 's' }, { sortBy: 'object', fields: ['object'] })).toEqual([
        { id: 'a', object: 'a' },
        { id: 'b', object: 'b' },
        { id: 'c', object: 'c' },
      ]);
      expect(await items.insertMissing([])).toEqual([]);
    });
  });
}
