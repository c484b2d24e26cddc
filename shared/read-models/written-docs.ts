import type { Collection, Filter, FindOptions } from '../docstore/port';

/**
 * The documents the projections of one runner last wrote, by collection and id
 * (null: deleted). Made for the history when it copied each document an event
 * changed right after the core projections wrote it (reading it back cost a
 * lookup and a parse per copy); it keeps versions as the projections write now
 * (history/versioning.ts) and no longer turns this on. Records nothing until
 * `enable`.
 *
 * What it answers is the document as last written through the tracked
 * collections, with its undefined fields left out (the engines store them as
 * absent). A write it cannot follow by id (`deleteMany`) forgets the
 * collection, so an answer is either that document or nothing
 * (`undefined`: read the store). Its reader clears it after each event it
 * copies and at each batch's start: a batch applied again after a failure must
 * not see what the failed attempt wrote.
 *
 * A recorded document is a copy of the written object's top level; the nested
 * values are shared, which holds because the projections build each document
 * anew, or from one they read just then, and never change it once written.
 */
export class WrittenDocs {
  private recording = false;
  private readonly byCollection = new Map<string, Map<string, object | null>>();

  /** Starts recording (idempotent). */
  enable(): void {
    this.recording = true;
  }

  /** The document `id` of `collection` as last written (null: deleted), or undefined when not known. */
  get<T extends { id: string }>(collection: string, id: string): T | null | undefined {
    return this.byCollection.get(collection)?.get(id) as T | null | undefined;
  }

  clear(): void {
    // Once per event the history copies, over every tracked collection: V8's Map#clear allocates a new table even
    // for an empty map, which made this a visible part of a rebuild's projection thread (docs/bench-history/design-choices.md).
    for (const docs of this.byCollection.values()) if (docs.size > 0) docs.clear();
  }

  /** `collection`, whose writes are recorded under `name` once recording is on (one tracked collection per name). */
  track<T extends { id: string }>(name: string, collection: Collection<T>): Collection<T> {
    const docs = new Map<string, object | null>();
    this.byCollection.set(name, docs);
    return new TrackedCollection(collection, () => (this.recording ? docs : null));
  }
}

/** The document's top level without its undefined fields: what the store will give back. */
function asStored(doc: object): object {
  // Once per document written: a key loop, not Object.entries' array of pairs (the documents are plain objects).
  const record = doc as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key in record) if (record[key] !== undefined) copy[key] = record[key];
  return copy;
}

class TrackedCollection<T extends { id: string }> implements Collection<T> {
  constructor(
    private readonly inner: Collection<T>,
    /** Where this collection's writes go, or null while nothing is recorded. */
    private readonly record: () => Map<string, object | null> | null,
  ) {}

  get(id: string): Promise<T | null> {
    return this.inner.get(id);
  }
  findOne(filter: Filter): Promise<T | null> {
    return this.inner.findOne(filter);
  }
  find(filter: Filter, options?: FindOptions): Promise<T[]> {
    return this.inner.find(filter, options);
  }
  count(filter: Filter): Promise<number> {
    return this.inner.count(filter);
  }

  async put(doc: T): Promise<void> {
    await this.inner.put(doc);
    this.record()?.set(doc.id, asStored(doc));
  }

  async putMany(docs: T[]): Promise<void> {
    await this.inner.putMany(docs);
    const written = this.record();
    if (written) for (const doc of docs) written.set(doc.id, asStored(doc));
  }

  async insertMissing(docs: T[]): Promise<T[]> {
    const inserted = await this.inner.insertMissing(docs);
    const written = this.record();
    if (written) for (const doc of inserted) written.set(doc.id, asStored(doc));
    return inserted;
  }

  async delete(id: string): Promise<void> {
    await this.inner.delete(id);
    this.record()?.set(id, null);
  }

  async deleteMany(filter: Filter): Promise<number> {
    const deleted = await this.inner.deleteMany(filter);
    // Which ids went is not known here: every answer about this collection could be stale.
    if (deleted > 0) this.record()?.clear();
    return deleted;
  }
}
