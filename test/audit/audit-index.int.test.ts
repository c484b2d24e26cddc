import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import { auditLogProjection } from '../../projection-service/audit/audit-projection';
import { legacyRuns, moveRunsToPostings } from '../../projection-service/audit/runs-to-postings';
import type { Collection, CollectionSpec, DocumentStore } from '../../shared/docstore/port';
import { AuditCollections, decodePostings, encodePosition, POSITION_WIDTH } from '../../shared/read-models/audit-log';
import { checkRandomQueries, checkReplaysMatchOnePass, dump, index, randomLog } from './support/index-checks';

/**
 * The index against the obvious answer: a random log of several environments
 * and an organisation, indexed in random batches, queried with random filters,
 * ranges, orders and page sizes, each compared with filtering the log in memory.
 * And the projection's idempotency: a log indexed with crashes and replays (an
 * engine without transactions) ends as the same documents as a clean pass.
 * (test/audit/audit-log.e2e.test.ts runs the same on MongoDB.)
 */
describe('audit-log index on SQLite', () => {
  let dir: string;
  const stores: SqliteDocumentStore[] = [];
  const open = async () => {
    const store = new SqliteDocumentStore(join(dir, `rm-${stores.length}.sqlite`));
    stores.push(store);
    // The projection's view of it, as the runner gives it (transactions run there).
    return store.writerView();
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-index-'));
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const log = randomLog(7, 3000);

  it('is the same after crashes and replays as after one clean pass', async () => {
    await checkReplaysMatchOnePass(open, log);
  });

  it('is the same when the replaying projection keeps few terms in memory and reads the others back', async () => {
    await checkReplaysMatchOnePass(open, log, 300, { cachedPostings: 5 });
  });

  it('is the same when the filter of stored prefixes fills and grows many times over', async () => {
    await checkReplaysMatchOnePass(open, log, 300, { cachedPostings: 5, filteredPrefixes: 16 });
  });

  it('reads a term back only when its scope has postings for it: a term new to the scope (a request id) costs no read', async () => {
    const store = await open();
    /** Documents found by each read of a term's postings; and the reads of a scope's prefixes into the filter. */
    const found: number[] = [];
    let prefixReads = 0;
    const watched = withCollection(store, 'audit_postings', (collection) => ({
      find: async (...args: Parameters<typeof collection.find>) => {
        const docs = await collection.find(...args);
        if (args[1]?.fields) prefixReads++;
        else found.push(docs.length);
        return docs;
      },
    }));
    const indexInBatches = async (events: typeof log) => {
      // A projection that keeps 5 terms reads most back.
      const projection = auditLogProjection(watched, { cachedPostings: 5 });
      for (let i = 0; i < events.length; i += 100) await index(projection, events.slice(i, i + 100), store);
    };

    await indexInBatches(log.slice(0, 1500));
    expect(found.length).toBeGreaterThan(1000);
    expect(found.filter((count) => count === 0)).toEqual([]);
    // Its scopes were new to it: every prefix they have went through its filter.
    expect(prefixReads).toBe(0);

    // A projection started on that index reads the prefixes of each scope it meets (3 environments, the organisation) once.
    const readsBefore = found.length;
    await indexInBatches(log.slice(1500));
    expect(found.length - readsBefore).toBeGreaterThan(1000);
    expect(found.filter((count) => count === 0)).toEqual([]);
    expect(prefixReads).toBe(4);

    const clean = await open();
    await index(auditLogProjection(clean), log, clean);
    expect(await dump(store)).toEqual(await dump(clean));
  });

  it('moves an index written before postings (one document per run) into the postings a rebuild makes, across a crash part-way', async () => {
    const rebuilt = await open();
    const projection = auditLogProjection(rebuilt);
    for (let i = 0; i < log.length; i += 500) await index(projection, log.slice(i, i + 500), rebuilt);

    // The same index as the layout before postings kept it: its entries, scopes and tasks, and a document per run.
    const upgraded = await open();
    const before = new AuditCollections(rebuilt);
    const after = new AuditCollections(upgraded);
    await after.scopes.putMany(await before.scopes.find({}));
    await after.entries.putMany(await before.entries.find({}));
    await after.tasks.putMany(await before.tasks.find({}));
    const legacy = legacyRuns(upgraded);
    const runs = (await before.postings.find({})).flatMap((doc) => {
      const flat = decodePostings(doc);
      const prefix = doc.id.slice(0, -POSITION_WIDTH);
      return Array.from({ length: flat.length / 2 }, (_, i) => ({
        id: `${prefix}${encodePosition(flat[2 * i]!)}`,
        e: flat[2 * i + 1]!,
      }));
    });
    expect(runs.length).toBeGreaterThan((await before.postings.count({})) * 2);
    await legacy.putMany(runs);

    // A crash after some pages moved (no transaction here), then the start that moves the rest.
    let deletes = 0;
    const crashing = withCollection(upgraded, 'audit_runs', (collection) => ({
      deleteMany: async (filter: Parameters<typeof collection.deleteMany>[0]) => {
        if (++deletes === 3) throw new Error('crash');
        return collection.deleteMany(filter);
      },
    }));
    await expect(moveRunsToPostings(crashing, after, 200)).rejects.toThrow('crash');
    expect(await legacy.count({})).toBeGreaterThan(0);
    await auditLogProjection(upgraded).open!();

    expect(await legacy.count({})).toBe(0);
    expect(await dump(upgraded)).toEqual(await dump(rebuilt));
    // And the projection goes on from there as on the rebuilt index.
    const more = randomLog(8, 3400).slice(3000);
    await index(auditLogProjection(upgraded), more, upgraded);
    await index(auditLogProjection(rebuilt), more, rebuilt);
    expect(await dump(upgraded)).toEqual(await dump(rebuilt));
  });

  it('answers random filters, ranges, orders and pages as filtering the log would', async () => {
    const store = await open();
    const projection = auditLogProjection(store);
    for (let i = 0; i < log.length; i += 500) await index(projection, log.slice(i, i + 500), store);
    await checkRandomQueries(store, log, 150);
  });
});

/** `store`, with some methods of its collection `name` replaced (to count its reads, or to crash part-way). */
function withCollection(
  store: DocumentStore,
  name: string,
  replace: (collection: Collection<{ id: string }>) => Partial<Collection<{ id: string }>>,
): DocumentStore {
  return {
    ...store,
    collection: <T extends { id: string }>(spec: CollectionSpec) => {
      const collection = store.collection<T>(spec);
      if (spec.name !== name) return collection;
      return Object.assign(Object.create(collection) as Collection<T>, replace(collection as unknown as Collection<{ id: string }>));
    },
  };
}
