import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Collection, DocumentStore } from '../../docstore/port';
import { SqliteDocumentStore } from '../../docstore/sqlite-document-store';
import { ReadModels, type TenantDoc } from '../read-models';
import { AsOfDocumentStore, HistoryCollections, OPEN } from './history';

const tenant = (name: string) =>
  ({ id: 't1', key: 'acme', name, environment_id: 'env', attributes: {}, description: null }) as unknown as TenantDoc;

describe('versions kept as the projections write', () => {
  let dir: string;
  let store: DocumentStore;
  let rm: ReadModels;
  let history: HistoryCollections;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'versioning-'));
    store = new SqliteDocumentStore(join(dir, 'rm.sqlite')).writerView();
    rm = new ReadModels(store);
    history = new HistoryCollections(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const at = async (position: number, write: () => Promise<unknown>) => {
    rm.versioning.at(position);
    await write();
  };

  it('writes nothing but the current document until enabled', async () => {
    await at(3, () => rm.tenants.put(tenant('Acme')));
    await at(4, () => rm.tenants.put(tenant('Acme Inc')));
    expect(await history.tenants.closed.find({})).toEqual([]);
    expect((await history.tenants.current.get('t1'))?._from ?? null).toBeNull();
  });

  it('stamps the current document, closes the version it replaces or deletes, and hides _from from the reads', async () => {
    rm.versioning.enable();
    rm.versioning.beginBatch();
    await at(3, () => rm.tenants.put(tenant('Acme')));
    await at(5, () => rm.tenants.put(tenant('Acme')));
    await at(7, () => rm.tenants.put(tenant('Acme Inc')));
    expect(await rm.tenants.get('t1')).toEqual(tenant('Acme Inc'));
    expect(await rm.tenants.find({ environment_id: 'env' })).toEqual([tenant('Acme Inc')]);
    expect((await history.tenants.current.get('t1'))!._from).toBe(7);
    // The unchanged write at 5 made no version.
    expect(await history.tenants.versions.find({}, { sortBy: '_from' })).toEqual([
      { ...tenant('Acme'), id: 't1@3', _oid: 't1', _from: 3, _to: 7 },
      { ...tenant('Acme Inc'), id: 't1@7', _oid: 't1', _from: 7, _to: OPEN },
    ]);
    await at(9, () => rm.tenants.delete('t1'));
    expect(await history.tenants.current.get('t1')).toBeNull();
    expect((await history.tenants.closed.find({}, { sortBy: '_from' })).map((v) => [v._from, v._to, v.name])).toEqual([
      [3, 7, 'Acme'],
      [7, 9, 'Acme Inc'],
    ]);
    const asOf = (p: number) => new ReadModels(new AsOfDocumentStore(store, p)).tenants;
    expect([await asOf(2).get('t1'), (await asOf(3).get('t1'))?.name, (await asOf(8).get('t1'))?.name, await asOf(9).get('t1')]).toEqual([
      null,
      'Acme',
      'Acme Inc',
      null,
    ]);
  });

  it('closes a version before it replaces the document (an engine without atomic batches never shows it in neither place)', async () => {
    const writes: string[] = [];
    const spy: DocumentStore = {
      ...store,
      collection: <T extends { id: string }>(spec: Parameters<DocumentStore['collection']>[0]) => {
        const inner = store.collection<T>(spec);
        const logged: Collection<T> = Object.create(inner) as Collection<T>;
        logged.put = async (doc) => (writes.push(`put ${spec.name}`), inner.put(doc));
        logged.insertMissing = async (docs) => (writes.push(`insert ${spec.name}`), inner.insertMissing(docs));
        logged.delete = async (id) => (writes.push(`delete ${spec.name}`), inner.delete(id));
        return logged;
      },
    };
    const spied = new ReadModels(spy);
    spied.versioning.enable();
    spied.versioning.at(3);
    await spied.tenants.put(tenant('Acme'));
    spied.versioning.at(4);
    await spied.tenants.put(tenant('Acme Inc'));
    spied.versioning.at(5);
    await spied.tenants.delete('t1');
    expect(writes).toEqual(['put tenants', 'insert history_tenants', 'put tenants', 'insert history_tenants', 'delete tenants']);
  });

  it('keeps what a first attempt wrote when a failed batch is applied again (a later event already applied)', async () => {
    rm.versioning.enable();
    rm.versioning.beginBatch();
    await at(3, () => rm.tenants.put(tenant('Acme')));
    await at(4, () => rm.tenants.put(tenant('Acme Inc')));
    await at(6, () => rm.tenants.put(tenant('Acme Corp')));
    // Applied again from 4 (on MongoDB, onto what the first attempt wrote): the document passes through an older state.
    rm.versioning.beginBatch();
    await at(4, () => rm.tenants.put(tenant('Acme Inc')));
    await at(6, () => rm.tenants.put(tenant('Acme Corp')));
    expect((await history.tenants.versions.find({}, { sortBy: '_from' })).map((v) => [v._from, v._to, v.name])).toEqual([
      [3, 4, 'Acme'],
      [4, 6, 'Acme Inc'],
      [6, OPEN, 'Acme Corp'],
    ]);
  });
});
