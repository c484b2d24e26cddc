import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import { auditLogProjection } from '../../projection-service/audit/audit-projection';
import type { Collection, CollectionSpec, DocumentStore } from '../../shared/docstore/port';
import { AuditCollections } from '../../shared/read-models/audit-log';
import { checkRandomQueries, checkReplaysMatchOnePass, dump, index, random, randomLog, termPositions } from './support/index-checks';

/**
 * The index against the obvious answer: a random log of several environments
 * and an organisation, indexed in random batches, queried with random filters,
 * ranges, orders and page sizes, each compared with filtering the log in memory.
 * And the projection's idempotency: a log indexed with crashes and replays (an
 * engine without transactions) ends as the same documents as a clean pass; one
 * indexed in transactions that fail part-way says the same as a clean pass.
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

  it('reads no postings back where batches are atomic: across failed batches and restarts, says what one clean pass says', async () => {
    const store = await open();
    let reads = 0;
    const watched = withCollection(store, 'audit_postings', (collection) => ({
      find: async (...args: Parameters<typeof collection.find>) => {
        reads++;
        return collection.find(...args);
      },
    }));
    // 5 terms kept: most terms come back after they were dropped, and start a new document then.
    const start = () => auditLogProjection(watched, { cachedPostings: 5 });
    const r = random(5);
    let projection = start();
    let failures = 0;
    for (let i = 0; i < log.length;) {
      const batch = log.slice(i, i + 1 + r.int(300));
      if (r.next() < 0.3) {
        // Fails part-way and is rolled back whole; applied again by the same projection, or by a restarted one.
        const applied = batch.slice(0, r.int(batch.length));
        const attempt = store.transaction(async () => {
          await projection.prepare!(batch);
          for (const event of applied) await projection.apply(event);
          throw new Error('failed part-way');
        });
        await expect(attempt).rejects.toThrow('failed part-way');
        failures++;
        if (r.next() < 0.5) projection = start();
        continue;
      }
      await index(projection, batch, store);
      i += batch.length;
    }
    expect(failures).toBeGreaterThan(5);
    expect(reads).toBe(0);

    const clean = await open();
    await index(auditLogProjection(clean), log, clean);
    // Its scopes, entries and tasks are one pass's; its postings are cut into more documents, which say the same of every term.
    const [got, want] = [(await dump(store)) as Record<string, unknown>, (await dump(clean)) as Record<string, unknown>];
    expect({ ...got, postings: null }).toEqual({ ...want, postings: null });
    expect(await termPositions(store)).toEqual(await termPositions(clean));
    expect(await new AuditCollections(store).postings.count({})).toBeGreaterThan(await new AuditCollections(clean).postings.count({}));
    await checkRandomQueries(store, log, 60);
  });

  it('where batches are not atomic, reads a term back only when its scope has postings for it: a term new to the scope (a request id) costs no read', async () => {
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
      // A projection that keeps 5 terms reads most back (as on MongoDB, whose batches are not atomic).
      const projection = auditLogProjection(watched, { cachedPostings: 5, atomicBatches: false });
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
