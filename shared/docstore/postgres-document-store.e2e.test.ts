import postgres from 'postgres';
import { UnavailableError } from '../errors';
import { describeDocumentStoreContract } from '../testing/document-store-contract';
import { describeFindFields } from '../testing/find-fields-contract';
import { createTestDatabase, type TestDatabase } from '../testing/postgres-database';
import type { CollectionSpec, DocumentStore, Filter, FindOptions } from './port';
import { findInMemory } from './value-order';
import { PostgresDocumentStore } from './postgres-document-store';

/**
 * The document-store contract and the PostgreSQL adapter's own promises against a real
 * PostgreSQL, when POSTGRES_URL points at one (.ci/e2e.sh starts one with scripts/postgres.sh).
 * The file gets a database of its own, and every store a schema of its own in it; without the
 * variable the suite is reported as skipped.
 */
const serverUrl = process.env.POSTGRES_URL;

if (serverUrl) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'rebac_rm');
  });
  afterAll(async () => {
    await database?.drop();
  });

  let counter = 0;
  const schemas = new Map<object, string>();
  const harness = {
    async create() {
      const schema = `contract_${++counter}`;
      const store = await PostgresDocumentStore.connect({ url: database.url, schema });
      schemas.set(store, schema);
      return store;
    },
    async dispose(store: DocumentStore) {
      await store.close();
      const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
      await sql.unsafe(`DROP SCHEMA IF EXISTS "${schemas.get(store)}" CASCADE`);
      await sql.end();
    },
  };
  describeDocumentStoreContract('postgres', harness);
  describeFindFields('postgres', harness);

  describe('PostgresDocumentStore', () => {
    let store: PostgresDocumentStore;
    let sql: postgres.Sql;
    beforeAll(async () => {
      store = await PostgresDocumentStore.connect({ url: database.url, schema: 'extra' });
      sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    });
    afterAll(async () => {
      await store.close();
      await sql.end();
    });

    it('fails with UnavailableError (503) when the server cannot be reached', async () => {
      const unreachable = PostgresDocumentStore.connect({
        url: 'postgres://postgres@127.0.0.1:1/none',
        schema: 'x',
        connectTimeoutSeconds: 1,
      });
      await expect(unreachable).rejects.toBeInstanceOf(UnavailableError);
      await expect(unreachable).rejects.toThrow(/read models on PostgreSQL cannot be reached/);
    });

    it('keeps keys any JSON may hold, and values exactly', async () => {
      const docs = store.collection<{ id: string; env: string; attributes: Record<string, unknown> }>({
        name: 'odd_keys',
        fields: ['env'],
        indexes: [['env']],
      });
      const doc = {
        id: 'a',
        env: 'e',
        attributes: {
          'dotted.key': 1,
          $dollar: 'x',
          nested: { 'a.b': [1, null, { c: 'd' }] },
          big: 2 ** 52 + 1,
          small: 0.1,
          unicode: 'é😀',
        },
      };
      await docs.put(doc);
      expect(await docs.get('a')).toEqual(doc);
      expect(await docs.findOne({ env: 'e' })).toEqual(doc);
    });

    it('orders and bounds values of mixed types as the port does (null, numbers, then strings by bytes)', async () => {
      type Doc = { id: string; v: unknown };
      const docs = store.collection<Doc>({ name: 'mixed', fields: ['v'], indexes: [['v']] });
      const values: unknown[] = [null, undefined, -1.5, 0, 2, 10, true, false, '', '10', '2', 'a', 'b', 'é', 'Z'];
      const all = values.map((v, i) => (v === undefined ? { id: `d${i}` } : { id: `d${i}`, v })) as Doc[];
      await docs.putMany(all);
      // The keys the adapter writes are the ones the schema's SQL functions compute from the documents.
      const [disagree] = await sql`
        SELECT count(*)::int AS n FROM extra.rm_mixed WHERE "v" <> extra.field_text(doc -> 'v') OR "v#n" <> extra.field_number(doc -> 'v')`;
      expect(disagree).toEqual({ n: 0 });
      const ids = (found: Doc[]) => found.map((d) => d.id);
      const asPort = (filter: Filter, options: FindOptions = {}) => ids(findInMemory(all, filter, options));
      for (const descending of [false, true]) {
        expect(ids(await docs.find({}, { sortBy: 'v', descending }))).toEqual(asPort({}, { sortBy: 'v', descending }));
      }
      for (const bound of [2, '2', 0, '', 'a']) {
        for (const operator of ['$gt', '$gte', '$lt', '$lte'] as const) {
          const filter = { v: { [operator]: bound } };
          expect({ filter, found: ids(await docs.find(filter, { sortBy: 'v' })) }).toEqual({
            filter,
            found: asPort(filter, { sortBy: 'v' }),
          });
        }
      }
      expect(ids(await docs.find({ v: null }, { sortBy: 'id' }))).toEqual(['d0', 'd1']);
      expect(ids(await docs.find({ v: { $in: [2, '2', null] } }, { sortBy: 'id' }))).toEqual(['d0', 'd1', 'd10', 'd4']);
      expect(await docs.find({ v: { $gte: 'a' } }, { sortBy: 'v', fields: ['v'] })).toEqual([
        { id: 'd11', v: 'a' },
        { id: 'd12', v: 'b' },
        { id: 'd13', v: 'é' },
      ]);
      expect(await docs.find({ v: { $in: [10, null] } }, { sortBy: 'v', fields: ['v'] })).toEqual([
        { id: 'd0', v: null },
        { id: 'd1', v: null },
        { id: 'd5', v: 10 },
      ]);
    });

    it('reads a keyset page on the field after the equalities from the index, in order, with no sort step', async () => {
      type Edge = { id: string; env: string; subject: string; object: string };
      const spec: CollectionSpec = { name: 'edges', fields: ['env', 'subject', 'object'], indexes: [['env', 'subject', 'object']] };
      const edges = store.collection<Edge>(spec);
      await edges.putMany(
        Array.from({ length: 5000 }, (_, i) => ({ id: `e${i}`, env: `env${i % 5}`, subject: `s${i % 50}`, object: `o${i}` })),
      );
      await sql.unsafe('ANALYZE extra.rm_edges');
      // The statement the find runs (the spy records its calls and runs it).
      const run = jest.spyOn(store, 'run');
      let page: Edge[];
      let statement: Parameters<PostgresDocumentStore['run']>;
      try {
        page = await edges.find({ env: 'env1', subject: 's1', object: { $gt: 'o1001' } }, { sortBy: 'object', limit: 3 });
        statement = run.mock.calls.at(-1)!;
      } finally {
        run.mockRestore();
      }
      expect(page.map((e) => e.object)).toEqual(['o101', 'o1051', 'o1101']);
      const [text, parameters] = statement;
      const plan = await sql.begin(async (tx) => {
        // Whatever the planner would pick for so small a table, the index must be able to serve the page alone.
        await tx.unsafe('SET LOCAL enable_seqscan = off');
        await tx.unsafe('SET LOCAL enable_bitmapscan = off');
        return JSON.stringify(await tx.unsafe(`EXPLAIN (FORMAT JSON) ${text}`, parameters as never[]));
      });
      expect(plan).toContain('"Index Name":"rm_edges__env_subject_object"');
      expect(plan).not.toContain('Sort');
    });

    it('adds the columns of a field declared later, filled for the rows there, and drops its indexes no longer declared (keeping any other)', async () => {
      const spec = (fields: string[], indexes: string[][]): CollectionSpec => ({ name: 'redeclared', fields, indexes });
      await store.collection<{ id: string; a: string; b: string }>(spec(['a'], [['a']])).put({ id: 'x', a: '1', b: '2' });
      await sql.unsafe('CREATE INDEX made_by_hand ON extra.rm_redeclared (id)');
      const later = await PostgresDocumentStore.connect({ url: database.url, schema: 'extra' });
      try {
        const docs = later.collection<{ id: string; a: string; b: string }>(spec(['a', 'b'], [['b']]));
        expect(await docs.find({ b: '2' }, { fields: ['a', 'b'] })).toEqual([{ id: 'x', a: '1', b: '2' }]);
        const names = await sql<Array<{ name: string }>>`
          SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'extra' AND tablename = 'rm_redeclared' ORDER BY 1`;
        expect(names.map((n) => n.name)).toEqual(['made_by_hand', 'rm_redeclared__b', 'rm_redeclared_pkey']);
      } finally {
        await later.close();
      }
    });

    it('holds the writes of a transaction until a read of their table needs them, then sends them as one statement per kind', async () => {
      type Item = { id: string; n: number };
      const writer = store.writerView();
      const items = writer.collection<Item>({ name: 'held', fields: ['n'], indexes: [['n']] });
      const others = writer.collection<Item>({ name: 'held_other', fields: [], indexes: [] });
      await items.put({ id: 'before', n: -1 });
      const run = jest.spyOn(writer as unknown as PostgresDocumentStore, 'run');
      try {
        await writer.transaction(async () => {
          for (let i = 0; i < 100; i++) await items.put({ id: `i${i}`, n: i });
          await items.put({ id: 'i0', n: 1000 });
          await items.delete('i1');
          await items.delete('before');
          // Another table's read sends nothing of this one.
          expect(await others.count({})).toBe(0);
          expect(run.mock.calls.map(([text]) => text.split(' ')[0])).toEqual(['SELECT']);
          expect(await items.count({})).toBe(99);
          expect(await items.find({ n: { $gte: 99 } }, { sortBy: 'n', fields: ['n'] })).toEqual([
            { id: 'i99', n: 99 },
            { id: 'i0', n: 1000 },
          ]);
        });
        expect(run.mock.calls.map(([text]) => text.split(' ')[0])).toEqual(['SELECT', 'INSERT', 'DELETE', 'SELECT', 'SELECT']);
      } finally {
        run.mockRestore();
      }
      expect(await store.collection<Item>({ name: 'held', fields: ['n'], indexes: [['n']] }).count({})).toBe(99);
    });

    it('fails the commit when a held write fails, and keeps none of the transaction', async () => {
      const writer = store.writerView();
      const items = writer.collection<{ id: string; text: string }>({ name: 'held_failing', fields: [], indexes: [] });
      await expect(
        writer.transaction(async () => {
          await items.put({ id: 'fine', text: 'ok' });
          // PostgreSQL's text cannot hold U+0000: refused when the held write reaches the server, at the commit.
          await items.put({ id: 'refused', text: 'nul \u0000 inside' });
        }),
      ).rejects.toThrow();
      expect(await store.collection<{ id: string }>({ name: 'held_failing', fields: [], indexes: [] }).count({})).toBe(0);
    });

    it('has PostgreSQL analyse a table once a transaction grew it past a thousand rows, not before', async () => {
      const writer = store.writerView();
      const items = writer.collection<{ id: string; n: number }>({ name: 'growing', fields: ['n'], indexes: [['n']] });
      const analysed = async () => {
        const [row] = await sql`
          SELECT analyze_count + autoanalyze_count AS n FROM pg_stat_user_tables WHERE schemaname = 'extra' AND relname = 'rm_growing'`;
        return Number(row?.n ?? 0);
      };
      await writer.transaction(() => items.putMany(Array.from({ length: 900 }, (_, i) => ({ id: `a${i}`, n: i }))));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await analysed()).toBe(0);
      await writer.transaction(() => items.putMany(Array.from({ length: 200 }, (_, i) => ({ id: `b${i}`, n: i }))));
      // In the background, and counted by the statistics collector once reported: waited for.
      for (let waited = 0; (await analysed()) === 0 && waited < 10_000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await analysed()).toBe(1);
    });

    it('lets exactly one of two racing first checkpoint saves win', async () => {
      const results = await Promise.all([store.saveCheckpoint('race', null, 1), store.saveCheckpoint('race', null, 2)]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const saved = await store.loadCheckpoint('race');
      expect(results.find((r) => !r.ok)).toEqual({ ok: false, reason: 'MISMATCH', current: saved });
    });

    it('puts many documents in one statement, the last version of a repeated id winning', async () => {
      const items = store.collection<{ id: string; n: number }>({ name: 'many', fields: ['n'], indexes: [] });
      const docs = Array.from({ length: 1200 }, (_, i) => ({ id: `d${i}`, n: i }));
      const run = jest.spyOn(store, 'run');
      try {
        await items.putMany([...docs, { id: 'd0', n: -1 }]);
        expect(run.mock.calls.filter(([text]) => text.startsWith('INSERT'))).toHaveLength(1);
      } finally {
        run.mockRestore();
      }
      expect(await items.count({})).toBe(1200);
      expect(await items.get('d0')).toEqual({ id: 'd0', n: -1 });
    });

    it('keeps the tables of another schema apart, and dropAll empties only its own', async () => {
      const other = await PostgresDocumentStore.connect({ url: database.url, schema: 'extra_other' });
      try {
        const spec: CollectionSpec = { name: 'apart', fields: [], indexes: [] };
        await store.collection<{ id: string }>(spec).put({ id: 'mine' });
        await other.collection<{ id: string }>(spec).put({ id: 'theirs' });
        await other.dropAll();
        expect(await other.collection<{ id: string }>(spec).count({})).toBe(0);
        expect(await store.collection<{ id: string }>(spec).get('mine')).toEqual({ id: 'mine' });
      } finally {
        await other.close();
        await sql.unsafe('DROP SCHEMA extra_other CASCADE');
      }
    });
  });
} else {
  describe.skip('DocumentStore on PostgreSQL (skipped: POSTGRES_URL is not set)', () => {
    it('needs POSTGRES_URL', () => undefined);
  });
}
