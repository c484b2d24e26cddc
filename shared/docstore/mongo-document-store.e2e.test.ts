import { MongoClient } from 'mongodb';
import { describeDocumentStoreContract } from '../testing/document-store-contract';
import { describeFindFields } from '../testing/find-fields-contract';
import { MongoDocumentStore } from './mongo-document-store';
import type { DocumentStore } from './port';

/**
 * The document-store contract against a real MongoDB-protocol server
 * (FerretDB in CI: scripts/test-servers.sh start exports MONGODB_URL).
 * Every test gets its own database, dropped afterwards.
 */
const url = process.env.MONGODB_URL;
if (!url) throw new Error('MONGODB_URL is not set: start the test servers (scripts/test-servers.sh start) or run .ci/e2e.sh');

const run = `contract_${process.pid}_${Date.now()}`;
let counter = 0;
const databases = new Map<object, string>();

const harness = {
  async create() {
    const database = `${run}_${++counter}`;
    const store = await MongoDocumentStore.connect({ url, database });
    databases.set(store, database);
    return store;
  },
  async dispose(store: DocumentStore) {
    await store.close();
    const client = await MongoClient.connect(url);
    await client.db(databases.get(store)).dropDatabase();
    await client.close();
  },
};
describeDocumentStoreContract('mongodb', harness);
describeFindFields('mongodb', harness);

describe('MongoDocumentStore', () => {
  let store: MongoDocumentStore;
  const database = `${run}_extra`;
  beforeAll(async () => {
    store = await MongoDocumentStore.connect({ url, database });
  });
  afterAll(async () => {
    await store.close();
    const client = await MongoClient.connect(url);
    await client.db(database).dropDatabase();
    await client.close();
  });

  it('keeps keys the server would refuse as field names, and values exactly', async () => {
    const docs = store.collection<{ id: string; env: string; attributes: Record<string, unknown> }>({
      name: 'odd_keys',
      fields: ['env'],
      indexes: [['env']],
    });
    const doc = {
      id: 'a',
      env: 'e',
      attributes: { 'dotted.key': 1, $dollar: 'x', nested: { 'a.b': [1, null, { c: 'd' }] }, big: 2 ** 52 + 1 },
    };
    await docs.put(doc);
    expect(await docs.get('a')).toEqual(doc);
    expect(await docs.findOne({ env: 'e' })).toEqual(doc);
  });

  it('creates the declared indexes, each ending with _id', async () => {
    const items = store.collection<{ id: string; a: string; b: string }>({
      name: 'indexed',
      fields: ['a', 'b'],
      indexes: [['a', 'b'], ['b']],
    });
    await items.put({ id: 'x', a: '1', b: '2' });
    const client = await MongoClient.connect(url);
    const indexes = await client.db(database).collection('rm_indexed').indexes();
    await client.close();
    expect(indexes.map((i) => i.key)).toEqual(
      expect.arrayContaining([
        { a: 1, b: 1, _id: 1 },
        { b: 1, _id: 1 },
      ]),
    );
  });

  it('drops the indexes it made that are no longer declared, and keeps any other', async () => {
    const spec = (indexes: string[][]) => ({ name: 'redeclared', fields: ['a', 'b'], indexes });
    const client = await MongoClient.connect(url);
    try {
      const names = async () => (await client.db(database).collection('rm_redeclared').indexes()).map((i) => i.name).sort();
      await store.collection<{ id: string; a: string; b: string }>(spec([['a'], ['b']])).put({ id: 'x', a: '1', b: '2' });
      await client.db(database).collection('rm_redeclared').createIndex({ b: 1 }, { name: 'made_by_hand' });
      expect(await names()).toEqual(['_id_', 'a__id', 'b__id', 'made_by_hand']);
      // A later version declares only `a` (a new process: the collection's first use there).
      const later = await MongoDocumentStore.connect({ url, database });
      try {
        expect(await later.collection<{ id: string; a: string; b: string }>(spec([['a']])).get('x')).toEqual({ id: 'x', a: '1', b: '2' });
        expect(await names()).toEqual(['_id_', 'a__id', 'made_by_hand']);
      } finally {
        await later.close();
      }
    } finally {
      await client.close();
    }
  });

  it('lets exactly one of two racing first checkpoint saves win', async () => {
    const results = await Promise.all([store.saveCheckpoint('race', null, 1), store.saveCheckpoint('race', null, 2)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const saved = await store.loadCheckpoint('race');
    expect(results.find((r) => !r.ok)).toEqual({ ok: false, reason: 'MISMATCH', current: saved });
  });

  it('puts many documents in one call, the last version of a repeated id winning', async () => {
    const items = store.collection<{ id: string; n: number }>({ name: 'many', fields: ['n'], indexes: [] });
    const docs = Array.from({ length: 1200 }, (_, i) => ({ id: `d${i}`, n: i }));
    await items.putMany([...docs, { id: 'd0', n: -1 }]);
    expect(await items.count({})).toBe(1200);
    expect(await items.get('d0')).toEqual({ id: 'd0', n: -1 });
  });
});
