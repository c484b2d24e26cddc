import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../docstore/sqlite-document-store';
import { ReadModels, type TupleDoc } from './read-models';

const tuple = (id: string, extra: Partial<TupleDoc> = {}) =>
  ({ id, subject: 'folder:a', relation: 'parent', object: `file:${id}`, tenant: 'default', environment_id: 'env', ...extra }) as TupleDoc;

describe('WrittenDocs: what the projections last wrote, handed to the history', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'written-docs-'));
    store = new SqliteDocumentStore(join(dir, 'rm.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records nothing until enabled, and nothing on the read side', async () => {
    const rm = ReadModels.writer(store);
    await rm.tuples.put(tuple('t1'));
    expect(rm.written!.get('tuples', 't1')).toBeUndefined();
    expect(new ReadModels(store).written).toBeNull();
  });

  it('answers the last write by id: the document as stored (undefined fields left out), null once deleted', async () => {
    const rm = ReadModels.writer(store);
    rm.written!.enable();
    await rm.tuples.put(tuple('t1', { tenant: undefined as unknown as string }));
    expect(rm.written!.get('tuples', 't1')).toEqual(tuple('t1', { tenant: undefined as unknown as string }));
    expect(Object.keys(rm.written!.get('tuples', 't1')!)).not.toContain('tenant');
    await rm.tuples.putMany([tuple('t1', { relation: 'owner' }), tuple('t2')]);
    expect(rm.written!.get<TupleDoc>('tuples', 't1')!.relation).toBe('owner');
    await rm.tuples.delete('t1');
    expect(rm.written!.get('tuples', 't1')).toBeNull();
    // Another collection's document with the same id is its own.
    expect(rm.written!.get('assignments', 't2')).toBeUndefined();
  });

  it('records only what insertMissing inserted, and forgets a collection a deleteMany changed', async () => {
    const rm = ReadModels.writer(store);
    rm.written!.enable();
    await rm.tuples.put(tuple('t1'));
    rm.written!.clear();
    await rm.tuples.insertMissing([tuple('t1', { relation: 'owner' }), tuple('t2')]);
    expect(rm.written!.get('tuples', 't1')).toBeUndefined();
    expect(rm.written!.get('tuples', 't2')).toEqual(tuple('t2'));
    await rm.tuples.deleteMany({ environment_id: 'nowhere' });
    expect(rm.written!.get('tuples', 't2')).toEqual(tuple('t2'));
    await rm.tuples.deleteMany({ environment_id: 'env', object: 'file:t1' });
    expect(rm.written!.get('tuples', 't2')).toBeUndefined();
  });

  it('keeps its own copy of the top level: a change to the written object afterwards is not seen', async () => {
    const rm = ReadModels.writer(store);
    rm.written!.enable();
    const doc = tuple('t1');
    await rm.tuples.put(doc);
    doc.relation = 'changed';
    expect(rm.written!.get<TupleDoc>('tuples', 't1')!.relation).toBe('parent');
    expect(await rm.tuples.get('t1')).toEqual(rm.written!.get('tuples', 't1'));
  });
});
