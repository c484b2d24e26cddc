import { MongoClient, MongoServerError, type Db, type Document, type Collection as MongoCollection } from 'mongodb';
import type { CheckpointSaveResult, Collection, CollectionSpec, DocumentStore, FieldValue, Filter, FindOptions } from './port';
import type { ReadStores } from '../read-stores/port';
import { MongoTaskStore } from '../read-stores/tasks/mongo';
import { MongoGrantStore } from '../read-stores/grants/mongo';

/** How a read-model document is stored: `_id` = its id, each declared field at the top level, the whole document as JSON. */
interface StoredDoc {
  _id: string;
  _doc: string;
  [field: string]: unknown;
}

interface CheckpointDoc {
  _id: string;
  position: number;
}

const PREFIX = 'rm_';
const CHECKPOINTS = `${PREFIX}checkpoints`;
/** Writes per bulkWrite call (putMany, insertMissing). */
const BULK_CHUNK = 1000;
/**
 * The same on FerretDB: 1.24 never answers an ordered bulkWrite that replaces
 * 100 or more stored documents (a projection replaying a batch does that).
 */
const FERRETDB_BULK_CHUNK = 50;

export interface MongoDocumentStoreOptions {
  url: string;
  database: string;
}

/**
 * Read models and checkpoints on MongoDB (or a MongoDB-protocol server such as
 * FerretDB). Each collection is `rm_<name>`: `_id` is the document's id, the
 * declared fields sit at the top level (indexed as declared, with `_id` last
 * so a sort on the next field plus the id tiebreak is served by the index),
 * and the document itself is kept as a JSON string. Storing JSON keeps any
 * key (user attributes may hold `.` or `$`) and any value exactly as the API
 * returns it, on every server.
 *
 * No multi-document transactions and no change streams: `transaction` runs
 * the work as it comes (`atomicTransactions = false`); projections are
 * idempotent and the runner saves its checkpoint after the batch, so a crash
 * in between replays the batch onto what is already there. Checkpoints are
 * saved by compare-and-set (insert when none, else update filtered on the
 * expected value).
 */
export class MongoDocumentStore implements DocumentStore {
  readonly atomicTransactions = false;
  readonly unsortedPagesById = true;
  private readonly collections = new Map<string, MongoDocCollection<{ id: string }>>();
  private readStores: ReadStores | null = null;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly bulkChunk: number,
  ) {}

  static async connect(options: MongoDocumentStoreOptions): Promise<MongoDocumentStore> {
    const client = new MongoClient(options.url, { ignoreUndefined: true, serverSelectionTimeoutMS: 10_000 });
    await client.connect();
    const db = client.db(options.database);
    await db.command({ ping: 1 });
    const ferretdb = 'ferretdbVersion' in (await db.admin().command({ buildInfo: 1 }));
    return new MongoDocumentStore(client, db, ferretdb ? FERRETDB_BULK_CHUNK : BULK_CHUNK);
  }

  collection<T extends { id: string }>(spec: CollectionSpec): Collection<T> {
    let existing = this.collections.get(spec.name);
    if (!existing) {
      if (!/^[a-z_]+$/.test(spec.name)) throw new Error(`invalid collection name ${spec.name}`);
      existing = new MongoDocCollection(this.db.collection<StoredDoc>(`${PREFIX}${spec.name}`), spec, this.bulkChunk);
      this.collections.set(spec.name, existing);
    }
    return existing as unknown as Collection<T>;
  }

  /** The domain stores on this database (no transactions here: the writer view is the store itself). */
  stores(): ReadStores {
    return (this.readStores ??= { tasks: new MongoTaskStore(this.db), grants: new MongoGrantStore(this.db, this.bulkChunk) });
  }

  async transaction<R>(work: () => Promise<R>): Promise<R> {
    return work();
  }

  writerView(): DocumentStore {
    return this;
  }

  private get checkpoints(): MongoCollection<CheckpointDoc> {
    return this.db.collection<CheckpointDoc>(CHECKPOINTS);
  }

  async loadCheckpoint(name: string): Promise<number | null> {
    const doc = await this.checkpoints.findOne({ _id: name });
    return doc ? Number(doc.position) : null;
  }

  async saveCheckpoint(name: string, expected: number | null, next: number): Promise<CheckpointSaveResult> {
    if (expected === null) {
      try {
        await this.checkpoints.insertOne({ _id: name, position: next });
        return { ok: true };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    } else {
      const result = await this.checkpoints.updateOne({ _id: name, position: expected }, { $set: { position: next } });
      if (result.matchedCount === 1) return { ok: true };
    }
    return { ok: false, reason: 'MISMATCH', current: await this.loadCheckpoint(name) };
  }

  /** Empties every read-model collection and the checkpoints; indexes stay. */
  async dropAll(): Promise<void> {
    const names = await this.db.listCollections({}, { nameOnly: true }).toArray();
    for (const { name } of names) if (name.startsWith(PREFIX)) await this.db.collection(name).deleteMany({});
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** True for a duplicate key on insert (MongoDB and FerretDB both report E11000 there). */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000;
}

/** How the names of the indexes this adapter makes end: `<field>_<field>__id` (the id is the last key of each). */
const OWN_INDEX_SUFFIX = '__id';

class MongoDocCollection<T extends { id: string }> implements Collection<T> {
  private readonly fields: Set<string>;
  private indexes: Promise<void> | null = null;

  constructor(
    private readonly mongo: MongoCollection<StoredDoc>,
    private readonly spec: CollectionSpec,
    private readonly bulkChunk: number,
  ) {
    this.fields = new Set(spec.fields);
  }

  /**
   * Creates the declared indexes that are missing, once, on first use, and
   * drops the ones this adapter made (named `<fields>__id`) that are no longer
   * declared, as the SQLite adapter does: an index a new version stopped
   * reading would otherwise cost every write. One index per call, and only
   * missing ones: FerretDB 1.x drops the connection on a `createIndexes`
   * listing existing indexes in another order than it holds them, and on two
   * concurrent calls for one collection (several processes starting at once),
   * so a failed attempt is retried after looking again at what exists.
   */
  private ready(): Promise<void> {
    this.indexes ??= (async () => {
      const wanted = this.spec.indexes.map((fields) => ({
        name: `${fields.join('_')}${OWN_INDEX_SUFFIX}`,
        key: Object.fromEntries([...fields.map((f) => [this.fieldName(f), 1] as const), ['_id', 1] as const]),
      }));
      const wantedNames = new Set(wanted.map((index) => index.name));
      for (let attempt = 1; ; attempt++) {
        try {
          const existing = new Set(
            (
              await this.mongo
                .listIndexes()
                .toArray()
                .catch(() => [])
            ).map((i: { name?: unknown }) => String(i.name)),
          );
          for (const index of wanted) if (!existing.has(index.name)) await this.mongo.createIndex(index.key, { name: index.name });
          for (const name of existing) if (name.endsWith(OWN_INDEX_SUFFIX) && !wantedNames.has(name)) await this.mongo.dropIndex(name);
          return;
        } catch (error) {
          if (attempt >= 5) throw error;
          await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
        }
      }
    })().catch((error: unknown) => {
      this.indexes = null;
      throw error;
    });
    return this.indexes;
  }

  async get(id: string): Promise<T | null> {
    await this.ready();
    const doc = await this.mongo.findOne({ _id: id }, { projection: { _doc: 1 } });
    return doc ? parse<T>(doc) : null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const query = this.query(filter);
    await this.ready();
    const fields = options.fields?.map((f) => this.fieldName(f));
    // `_id` named, so that no fields (`[]`) reads ids alone: an empty projection would read whole documents.
    const projection = fields ? { _id: 1, ...Object.fromEntries(fields.map((f) => [f, 1])) } : { _doc: 1 };
    // `byId` is SQLite's need: MongoDB's planner tries the candidate indexes on the data and keeps the fastest.
    let cursor = this.mongo.find(query, { projection });
    if (options.sortBy) {
      const field = this.fieldName(options.sortBy);
      const direction = options.descending ? -1 : 1;
      cursor = cursor.sort(field === '_id' ? { _id: direction } : { [field]: direction, _id: direction });
    } else if (options.skip !== undefined) {
      // A page (an offset) needs an order that stays put. Natural order does not: a server may move a
      // document it rewrites (FerretDB does), so a list would reorder on every update, and a
      // list as of a past position (history versions, whose end is written later) would not
      // match what the list answered then. By id, the two agree (a version's id is `<id>@<from>`).
      cursor = cursor.sort({ _id: 1 });
    }
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined) {
      if (options.limit <= 0) return [];
      cursor = cursor.limit(options.limit);
    }
    const docs = await cursor.toArray();
    if (options.fields) return docs.map((doc) => partial<T>(options.fields!, doc));
    return docs.map((doc) => parse<T>(doc));
  }

  async count(filter: Filter): Promise<number> {
    const query = this.query(filter);
    await this.ready();
    return this.mongo.countDocuments(query);
  }

  async put(doc: T): Promise<void> {
    await this.ready();
    await this.mongo.replaceOne({ _id: doc.id }, this.stored(doc), { upsert: true });
  }

  async putMany(docs: T[]): Promise<void> {
    if (docs.length === 0) return;
    await this.ready();
    for (let i = 0; i < docs.length; i += this.bulkChunk) {
      const chunk = docs.slice(i, i + this.bulkChunk);
      // Ordered, so a document that appears twice ends as its last version (as sequential puts would).
      await this.mongo.bulkWrite(
        chunk.map((doc) => ({ replaceOne: { filter: { _id: doc.id }, replacement: this.stored(doc), upsert: true } })),
        { ordered: true },
      );
    }
  }

  async insertMissing(docs: T[]): Promise<T[]> {
    if (docs.length === 0) return [];
    await this.ready();
    const inserted: T[] = [];
    for (let i = 0; i < docs.length; i += this.bulkChunk) {
      const chunk = docs.slice(i, i + this.bulkChunk);
      // Ordered upserts that only set on insert: a stored document is left as it is, and the
      // result's upserted ids say which ones were new (of a repeated id, the first was inserted).
      const result = await this.mongo.bulkWrite(
        chunk.map((doc) => {
          const { _id, ...fields } = this.stored(doc);
          return { updateOne: { filter: { _id }, update: { $setOnInsert: fields }, upsert: true } };
        }),
        { ordered: true },
      );
      // By id, not by operation index: FerretDB numbers the upserts among themselves.
      const upserted = new Set(Object.values(result.upsertedIds).map(String));
      for (const doc of chunk) {
        if (upserted.delete(doc.id)) inserted.push(doc);
      }
    }
    return inserted;
  }

  async delete(id: string): Promise<void> {
    await this.ready();
    await this.mongo.deleteOne({ _id: id });
  }

  async deleteMany(filter: Filter): Promise<number> {
    const query = this.query(filter);
    await this.ready();
    return (await this.mongo.deleteMany(query)).deletedCount;
  }

  private stored(doc: T): StoredDoc {
    const record = doc as unknown as Record<string, unknown>;
    const stored: StoredDoc = { _id: doc.id, _doc: JSON.stringify(doc) };
    for (const field of this.spec.fields) stored[field] = toFieldValue(record[field]);
    return stored;
  }

  private fieldName(field: string): string {
    if (field === 'id') return '_id';
    if (!this.fields.has(field)) throw new Error(`field ${field} is not declared on collection ${this.spec.name}`);
    return field;
  }

  private query(filter: Filter): Document {
    const query: Document = {};
    for (const [field, condition] of Object.entries(filter)) {
      const name = this.fieldName(field);
      if (condition !== null && typeof condition === 'object' && '$in' in condition) {
        query[name] = { $in: condition.$in.map(toFieldValue) };
      } else if (condition !== null && typeof condition === 'object') {
        const bounds = RANGE_OPERATORS.filter((operator) => condition[operator] !== undefined);
        // A range without bounds matches every value, as on SQLite (`{field: {}}` would match only `{}`).
        if (bounds.length > 0) query[name] = Object.fromEntries(bounds.map((operator) => [operator, toFieldValue(condition[operator])]));
      } else {
        query[name] = toFieldValue(condition);
      }
    }
    return query;
  }
}

const RANGE_OPERATORS = ['$gt', '$gte', '$lt', '$lte'] as const;

/** A stored document read with a projection of declared fields, as the partial document `find` returns. */
function partial<T>(fields: string[], stored: Document): T {
  const doc: Record<string, unknown> = { id: stored._id };
  for (const field of fields) doc[field] = field === 'id' ? stored._id : (stored[field] ?? null);
  return doc as T;
}

function parse<T>(doc: { _doc?: unknown }): T {
  return JSON.parse(String(doc._doc)) as T;
}

/** Declared fields hold scalars; anything else is compared as its JSON text (as the SQLite adapter does). */
function toFieldValue(value: unknown): FieldValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}
