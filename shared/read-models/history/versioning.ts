import type { Collection, Filter, FindOptions } from '../../docstore/port';
import { withFields } from '../../objects';
import { sameDocument, versionOf, type Stamped, type Version } from './versions';

/** Documents whose current versions one query looks up (`$in`) when a batch is prefetched. */
const PREFETCH_CHUNK = 500;

/**
 * Keeps the versions of the versioned collections as the projections write them, once the history
 * asks for it (`enable`): each document written at an event's position carries that position as
 * `_from` (kept when the document did not change, or when a replayed event meets a document a later
 * one already wrote), and the version it replaces or deletes is closed, `[_from, position)`, and
 * written to the history collection first: on an engine whose batches are not atomic (MongoDB), a
 * reader never finds a document in neither place.
 *
 * What a batch knows of each document it touches (read once, or prefetched for the batch, then
 * kept up to date by its own writes) spares reading it back on each write; it is dropped when a
 * batch begins (one applied again after it failed must not see what the failed attempt wrote).
 */
export class Versioning {
  private enabled = false;
  private position = 0;
  private readonly known = new Map<string, Map<string, object | null>>();
  /** The stored collections wrapped, by name (their documents with `_from`). */
  private readonly stored = new Map<string, Collection<{ id: string }>>();

  /** Starts keeping versions (the history projection does, when it runs). */
  enable(): void {
    this.enabled = true;
  }

  get active(): boolean {
    return this.enabled;
  }

  /** The position of the event the projections apply next (what they write is as of it). */
  at(position: number): void {
    this.position = position;
  }

  /** Forgets what the last batch knew of the documents. */
  beginBatch(): void {
    for (const docs of this.known.values()) if (docs.size > 0) docs.clear();
  }

  /**
   * Reads the current documents `ids` of collection `name` that the batch does not
   * know yet, many a query, so that the writes of the batch need not read each one.
   */
  async prefetch(name: string, ids: Iterable<string>): Promise<void> {
    const current = this.stored.get(name);
    if (!current) throw new Error(`no versioned collection ${name}`);
    const known = this.knownOf(name);
    const wanted = [...new Set(ids)].filter((id) => !known.has(id));
    for (let i = 0; i < wanted.length; i += PREFETCH_CHUNK) {
      const chunk = wanted.slice(i, i + PREFETCH_CHUNK);
      for (const id of chunk) known.set(id, null);
      for (const doc of await current.find({ id: { $in: chunk } })) known.set(doc.id, doc);
    }
  }

  /** `current` (collection `name`), its writes versioned into `closed` once enabled. */
  wrap<T extends { id: string }>(name: string, current: Collection<T>, closed: () => Collection<Version<T>>): Collection<T> {
    this.stored.set(name, current);
    return new VersionedCollection(this, this.knownOf(name), current, closed);
  }

  /** The position writes are made at (see `at`). */
  get writePosition(): number {
    return this.position;
  }

  private knownOf(name: string): Map<string, object | null> {
    let known = this.known.get(name);
    if (!known) {
      known = new Map();
      this.known.set(name, known);
    }
    return known;
  }
}

/** Ids one delete names (`$in`): engines bound the size of one statement. */
const DELETE_CHUNK = 500;

/**
 * Deletes the documents `entries` name from `collection`, each as a delete event at its own
 * position would (`entries` in the log's order): where the collection keeps versions, each closed
 * at its entry's position, in one write; elsewhere deleted by ids, many a statement.
 */
export async function deleteEach<T extends { id: string }>(
  collection: Collection<T>,
  entries: ReadonlyArray<{ id: string; position: number }>,
): Promise<void> {
  if (collection instanceof VersionedCollection && collection.versioned) return collection.deleteEach(entries);
  await deleteIds(collection, entries);
}

async function deleteIds(collection: Collection<{ id: string }>, entries: ReadonlyArray<{ id: string }>): Promise<void> {
  for (let i = 0; i < entries.length; i += DELETE_CHUNK)
    await collection.deleteMany({ id: { $in: entries.slice(i, i + DELETE_CHUNK).map((entry) => entry.id) } });
}

/**
 * When a stored document became what it is: its `_from`, or 0 for one written before versions were
 * kept (the history stamps every current document with its start when it starts after the log did,
 * so only a store written without the history answers 0 here, and it refuses reads before its start).
 */
const fromOf = (doc: object): number => {
  const from = (doc as { _from?: unknown })._from;
  return typeof from === 'number' ? from : 0;
};

/** `doc` without its `_from` (the same object when it has none). */
function unstamped<T>(doc: T | null): T | null {
  if (doc === null || !Object.hasOwn(doc as object, '_from')) return doc;
  const record = doc as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key in record) if (key !== '_from') copy[key] = record[key];
  return copy as T;
}

class VersionedCollection<T extends { id: string }> implements Collection<T> {
  private closedCollection: Collection<Version<T>> | null = null;

  constructor(
    private readonly versioning: Versioning,
    /** This collection's documents as the batch knows them (null: absent). */
    private readonly known: Map<string, object | null>,
    private readonly inner: Collection<T>,
    private readonly closedOf: () => Collection<Version<T>>,
  ) {}

  /** Whether its writes keep versions now (the history enabled them). */
  get versioned(): boolean {
    return this.versioning.active;
  }

  // Read without `_from`: what the projections and the API read is the document (the as-of reads
  // and the versioning itself read the stored collections).
  async get(id: string): Promise<T | null> {
    return unstamped(await this.inner.get(id));
  }
  async findOne(filter: Filter): Promise<T | null> {
    return unstamped(await this.inner.findOne(filter));
  }
  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const found = await this.inner.find(filter, options);
    return options?.fields ? found : (found.map(unstamped) as T[]);
  }
  count(filter: Filter): Promise<number> {
    return this.inner.count(filter);
  }

  async put(doc: T): Promise<void> {
    if (!this.versioning.active) return this.inner.put(doc);
    await this.inner.put(await this.stamp(doc));
  }

  async putMany(docs: T[]): Promise<void> {
    if (!this.versioning.active) return this.inner.putMany(docs);
    const stamped: T[] = [];
    for (const doc of docs) stamped.push(await this.stamp(doc));
    await this.inner.putMany(stamped);
  }

  async insertMissing(docs: T[]): Promise<T[]> {
    if (!this.versioning.active) return this.inner.insertMissing(docs);
    // A document inserted is new: it starts here; one already stored stays as it is.
    const from = this.versioning.writePosition;
    const inserted = await this.inner.insertMissing(docs.map((doc) => withFields(doc, { _from: from }) as unknown as T));
    for (const doc of inserted) this.known.set(doc.id, doc);
    return inserted.map(unstamped) as T[];
  }

  async delete(id: string): Promise<void> {
    if (!this.versioning.active) return this.inner.delete(id);
    const prior = await this.prior(id);
    if (prior) await this.close(prior);
    await this.inner.delete(id);
    this.known.set(id, null);
  }

  /**
   * Deletes each of `entries`' documents as `delete` would at the entry's own position (a run of
   * events applied at once, shared/read-models/runs.ts): each version closed at its position, all
   * of them in one write, then the documents in as few deletes as the engine takes ids in one.
   */
  async deleteEach(entries: ReadonlyArray<{ id: string; position: number }>): Promise<void> {
    const versions: Array<Version<T>> = [];
    for (const { id, position } of entries) {
      const prior = await this.prior(id);
      if (prior && fromOf(prior) < position) versions.push(versionOf(prior, fromOf(prior), position));
      this.known.set(id, null);
    }
    if (versions.length > 0) {
      this.closedCollection ??= this.closedOf();
      await this.closedCollection.insertMissing(versions);
    }
    await deleteIds(this.inner, entries);
  }

  async deleteMany(filter: Filter): Promise<number> {
    if (!this.versioning.active) return this.inner.deleteMany(filter);
    const going = (await this.inner.find(filter)) as Array<Stamped<T>>;
    await this.close(...going);
    const deleted = await this.inner.deleteMany(filter);
    for (const doc of going) this.known.set(doc.id, null);
    return deleted;
  }

  /**
   * `doc` with its `_from`: the position written at, unless the stored document holds the same
   * (it stays as it was since) or was written at that position or later (a replay after a failed
   * batch: the later events, applied again, bring the document back to where it was). A document
   * replaced gets its version closed, in the history, first.
   */
  private async stamp(doc: T): Promise<T> {
    const position = this.versioning.writePosition;
    const prior = await this.prior(doc.id);
    let from = position;
    if (prior && (fromOf(prior) >= position || sameDocument(prior, doc))) from = fromOf(prior);
    else if (prior) await this.close(prior);
    const stamped = withFields(doc, { _from: from }) as unknown as T;
    this.known.set(doc.id, stamped);
    return stamped;
  }

  /** Writes the versions `priors` held as closed at the write position, in one write (each unless a replay meets a later one, or wrote it already). */
  private async close(...priors: Array<Stamped<T>>): Promise<void> {
    const position = this.versioning.writePosition;
    const versions: Array<Version<T>> = [];
    for (const prior of priors) {
      const from = fromOf(prior);
      if (from < position) versions.push(versionOf(prior, from, position));
    }
    if (versions.length === 0) return;
    this.closedCollection ??= this.closedOf();
    // Once written, a closed version is what the document was: a replay after a failed batch, whose
    // events may meet documents later ones changed (a tuple's instance already gone), keeps it.
    await this.closedCollection.insertMissing(versions);
  }

  /** The stored document `id`, as the batch knows it or read once. */
  private async prior(id: string): Promise<Stamped<T> | null> {
    const known = this.known.get(id);
    if (known !== undefined) return known as Stamped<T> | null;
    const found = (await this.inner.get(id)) as Stamped<T> | null;
    this.known.set(id, found);
    return found;
  }
}
