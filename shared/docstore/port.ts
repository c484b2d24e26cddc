import type { ReadStores } from '../read-stores/port';

/**
 * The read-model port: named collections of JSON documents keyed by `id`, with
 * equality queries on declared fields. Small on purpose, so that SQLite and
 * MongoDB implement it the same way and every projection and query runs on both.
 */

export type FieldValue = string | number | boolean | null;
/**
 * A range on one field: any of the bounds, combined (`{$gt: a, $lte: b}`).
 * Strings compare by their UTF-8 bytes (binary) on every engine.
 */
export interface Range {
  $gt?: FieldValue;
  $gte?: FieldValue;
  $lt?: FieldValue;
  $lte?: FieldValue;
}
/**
 * Equality on declared fields; `{$in: [...]}` matches any of the values;
 * a Range (`{$gt: v}`, …) matches values within it (keyset pagination, with
 * `sortBy` on the same field; `id` takes ranges too).
 */
export type Filter = Record<string, FieldValue | { $in: FieldValue[] } | Range>;

export interface CollectionSpec {
  name: string;
  /** Fields that filters and sorts may use. Each adapter makes them queryable. */
  fields: string[];
  /** Composite indexes, leftmost field first; every query shape should have one. */
  indexes: string[][];
  /**
   * The engine may keep each declared field once (as its queryable column)
   * instead of also inside the stored document, for collections written often
   * (SQLite does; a read puts them back, `id` and the declared fields first in
   * declared order, then the rest). Only where every document holds every
   * declared field as a string, a number or null: a missing field would come
   * back as null, a boolean as 1/0.
   */
  compact?: boolean;
  /**
   * Stored in the order of `id`, for collections of small documents read by
   * ranges of ids: SQLite keeps them in the primary key's tree alone (WITHOUT
   * ROWID: one tree to write instead of a table and its key index). Applies
   * when the engine creates the collection.
   */
  clustered?: boolean;
}

export interface FindOptions {
  /** Offset of a page. Without `sortBy`, pages follow an order of the engine's that does not change when a document is rewritten. */
  skip?: number;
  limit?: number;
  /** Declared field (or `id`) to sort by, ascending; `id` is the tiebreak. */
  sortBy?: string;
  /** Sort by `sortBy` (and the `id` tiebreak) in descending order instead. */
  descending?: boolean;
  /**
   * Read only `id` and these declared fields, not the whole document: the
   * result holds just those keys (a field that is null or absent comes back as
   * null). Cheaper for walks over many documents that need a few columns.
   * Only for fields holding strings or numbers (booleans are stored as 1/0 by
   * some engines).
   */
  fields?: string[];
  /**
   * Read through the id index: the filter's range on `id` bounds the read, and its other
   * conditions only narrow what that finds. For ranges of ids that embed the other fields (a
   * user's grants), which SQLite, knowing nothing of the data, would otherwise read through an
   * index on one of those fields (a whole environment) and sort. The documents found are the same.
   */
  byId?: boolean;
}

export interface Collection<T extends { id: string }> {
  get(id: string): Promise<T | null>;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter: Filter): Promise<number>;
  /** Inserts or replaces the document with this id (idempotent). */
  put(doc: T): Promise<void>;
  putMany(docs: T[]): Promise<void>;
  /**
   * Inserts each document whose id is not stored yet and leaves stored ones
   * untouched; returns the inserted ones, in order (the first of two with the
   * same id wins). One round trip instead of a read of the ids plus a write.
   */
  insertMissing(docs: T[]): Promise<T[]>;
  /** Removes the document if present (idempotent). */
  delete(id: string): Promise<void>;
  deleteMany(filter: Filter): Promise<number>;
}

export type CheckpointSaveResult = { ok: true } | { ok: false; reason: 'MISMATCH'; current: number | null };

export interface DocumentStore {
  collection<T extends { id: string }>(spec: CollectionSpec): Collection<T>;

  /**
   * The domain stores (shared/read-stores/, docs/read-stores.md) on this store's engine, through
   * this view: those of the writer view write in its transactions, and read what they wrote.
   * Emptied with the collections by `dropAll`. Every engine's adapter has them; a view that has
   * none (the history's view as of a position) leaves it out (`readStoresOf` refuses it).
   */
  stores?(): ReadStores;

  /**
   * Runs `work` atomically where the engine can (SQLite); elsewhere the writes
   * inside are applied one by one, and callers must stay correct under partial
   * application plus replay (projections are idempotent for that reason).
   */
  transaction<R>(work: () => Promise<R>): Promise<R>;
  readonly atomicTransactions: boolean;
  /**
   * Whether a page without `sortBy` (a find with `skip`) comes in id order (MongoDB's adapter sorts
   * it so); otherwise it comes in the order of the index the engine reads (SQLite). A read that
   * merges two collections into one list (the history's reads as of a position) keeps that order.
   */
  readonly unsortedPagesById?: boolean;

  /**
   * The view of this store that the one writer of its read models uses (the
   * projection runner and its projections): `transaction` runs on it, and
   * inside a transaction its reads see the transaction's writes. Reads through
   * the store itself see committed state only, and its writes wait until an
   * open transaction has ended. A store that makes no such difference (its
   * transactions are not atomic) is its own writer view.
   */
  writerView(): DocumentStore;

  /** Last processed position of a named consumer (null when never saved). */
  loadCheckpoint(name: string): Promise<number | null>;
  /** Compare-and-set: stores `next` only if the stored value is still `expected`. */
  saveCheckpoint(name: string, expected: number | null, next: number): Promise<CheckpointSaveResult>;

  /** Drops every collection and checkpoint (rebuilding read models from the log). */
  dropAll(): Promise<void>;
  close(): Promise<void>;
}
