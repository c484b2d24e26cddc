import type { Collection, CollectionSpec, Filter, FindOptions } from './port';
import { HOLD_AT_MOST, type HeldWrites, type SendWrites } from './postgres-write-buffer';
import {
  checkName,
  fieldKey,
  fieldValue,
  keyColumns,
  NULL_KEY,
  numberColumn,
  tableName,
  textColumn,
  type FieldKey,
} from './postgres-tables';

/** What a collection runs its statements through: the store, or its writer view (postgres-document-store.ts). */
export interface StatementRunner {
  readonly schema: string;
  /** Rows as arrays of column values. `write`: a write, which the store holds until an open transaction ends. */
  run(sql: string, parameters: unknown[], write?: boolean): Promise<unknown[][]>;
  /** Rows affected by a write. */
  runCount(sql: string, parameters: unknown[]): Promise<number>;
  /** Settles once the collection's table exists (made on first use). */
  defined(spec: CollectionSpec): Promise<void>;
  /** The open transaction's writes held for `table` (postgres-write-buffer.ts), or null where writes go at once. */
  held(table: string, send: SendWrites): HeldWrites | null;
  /** Sends the writes held for `table`, before a statement that must see them. */
  flush(table: string): Promise<void>;
  /** `rows` were sent to `table` (postgres-statistics.ts). */
  wrote(table: string, rows: number): void;
}

/** Bytes of documents' JSON per statement of a batch write: one statement per batch, short of huge ones. */
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * A collection on PostgreSQL (the table postgres-tables.ts describes). Filters, ranges, `$in`,
 * sorts and pages are SQL on the fields' key columns, so a declared index serves them; batch
 * writes are one statement over a JSON array of the documents.
 */
export class PostgresCollection<T extends { id: string }> implements Collection<T> {
  private readonly table: string;
  private readonly fields: Set<string>;
  /** Named statements: each the same text at every call, so the client prepares it once per connection. */
  private readonly sql: {
    get: string;
    upsertMany: string;
    insertMissing: string;
    delete: string;
    deleteMany: string;
  };

  constructor(
    private readonly runner: StatementRunner,
    private readonly spec: CollectionSpec,
  ) {
    checkName('collection', spec.name);
    for (const field of spec.fields) checkName('field', field);
    this.table = tableName(runner.schema, spec.name);
    this.fields = new Set(spec.fields);
    // The rows of a batch: `$1` is their JSON array (one parameter, one round trip), each row the
    // id, the document and its fields' keys (rowsJson), read with the columns' types.
    const keys = spec.fields.flatMap((field) => [textColumn(field), numberColumn(field)]);
    const columns = ['id', 'doc', ...keys].join(', ');
    const types = ['id text', 'doc jsonb', ...spec.fields.flatMap((f) => [`${textColumn(f)} text`, `${numberColumn(f)} double precision`])];
    const rows = `SELECT ${columns} FROM jsonb_to_recordset($1::text::jsonb) AS r(${types.join(', ')})`;
    const replace = ['doc', ...keys].map((column) => `${column} = excluded.${column}`).join(', ');
    this.sql = {
      get: `SELECT doc FROM ${this.table} WHERE id = $1`,
      upsertMany: `INSERT INTO ${this.table} (${columns}) ${rows} ON CONFLICT (id) DO UPDATE SET ${replace}`,
      insertMissing: `INSERT INTO ${this.table} (${columns}) ${rows} ON CONFLICT (id) DO NOTHING RETURNING id`,
      delete: `DELETE FROM ${this.table} WHERE id = $1`,
      deleteMany: `DELETE FROM ${this.table} WHERE id = ANY($1::text[])`,
    };
  }

  async get(id: string): Promise<T | null> {
    await this.ready();
    const [row] = await this.runner.run(this.sql.get, [id]);
    return row ? (row[0] as T) : null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const parameters: unknown[] = [];
    const where = this.where(filter, parameters);
    const fields = options.fields?.filter((field) => field !== 'id');
    for (const field of fields ?? []) this.checkField(field);
    // `fields`: the key columns (an index that holds them answers alone), turned back into values.
    const columns = fields ? ['id', ...fields.flatMap((field) => [textColumn(field), numberColumn(field)])] : ['doc'];
    let sql = `SELECT ${columns.join(', ')} FROM ${this.table}${where}`;
    const direction = options.descending ? ' DESC' : '';
    if (options.sortBy && options.sortBy !== 'id') {
      this.checkField(options.sortBy);
      sql += ` ORDER BY ${textColumn(options.sortBy)}${direction}, ${numberColumn(options.sortBy)}${direction}, id${direction}`;
    } else if (options.sortBy === 'id' || options.skip !== undefined) {
      // A page without a sort is in id order: the order rows sit in changes as they are rewritten (MVCC), ids do not.
      sql += ` ORDER BY id${direction}`;
    }
    if (options.limit !== undefined) sql += ` LIMIT ${limitLiteral(options.limit)}`;
    if (options.skip) {
      parameters.push(options.skip);
      sql += ` OFFSET $${parameters.length}`;
    }
    await this.ready();
    const rows = await this.runner.run(sql, parameters);
    if (!fields) return rows.map((row) => row[0] as T);
    return rows.map((row) => {
      const doc: Record<string, unknown> = { id: row[0] };
      fields.forEach((field, i) => (doc[field] = fieldValue(row[1 + 2 * i] as string, row[2 + 2 * i] as number)));
      return doc as T;
    });
  }

  async count(filter: Filter): Promise<number> {
    const parameters: unknown[] = [];
    const where = this.where(filter, parameters);
    await this.ready();
    const [row] = await this.runner.run(`SELECT count(*) FROM ${this.table}${where}`, parameters);
    return row![0] as number;
  }

  async put(doc: T): Promise<void> {
    if (await this.hold([doc])) return;
    await this.runner.defined(this.spec);
    await this.runner.run(this.sql.upsertMany, this.rowsJson([doc]), true);
    this.runner.wrote(this.spec.name, 1);
  }

  async putMany(docs: T[]): Promise<void> {
    if (docs.length === 0 || (await this.hold(docs))) return;
    // One statement may not update a row twice: of a repeated id, the last version is the one sequential puts would leave.
    const last = new Map<string, T>();
    for (const doc of docs) {
      last.delete(doc.id);
      last.set(doc.id, doc);
    }
    await this.runner.defined(this.spec);
    for (const rows of this.rowsJson([...last.values()])) await this.runner.run(this.sql.upsertMany, [rows], true);
    this.runner.wrote(this.spec.name, last.size);
  }

  async insertMissing(docs: T[]): Promise<T[]> {
    if (docs.length === 0) return [];
    // Of a repeated id, the first is the one inserted (as sequential inserts would).
    const first = new Map<string, T>();
    for (const doc of docs) if (!first.has(doc.id)) first.set(doc.id, doc);
    await this.ready();
    const inserted = new Set<string>();
    for (const rows of this.rowsJson([...first.values()])) {
      for (const [id] of await this.runner.run(this.sql.insertMissing, [rows], true)) inserted.add(id as string);
    }
    this.runner.wrote(this.spec.name, inserted.size);
    return [...first.values()].filter((doc) => inserted.has(doc.id));
  }

  async delete(id: string): Promise<void> {
    const held = this.runner.held(this.spec.name, this.send);
    if (held) {
      held.delete(id);
      held.set(id, null);
      return;
    }
    await this.runner.defined(this.spec);
    await this.runner.run(this.sql.delete, [id], true);
  }

  async deleteMany(filter: Filter): Promise<number> {
    const parameters: unknown[] = [];
    const where = this.where(filter, parameters);
    await this.ready();
    return this.runner.runCount(`DELETE FROM ${this.table}${where}`, parameters);
  }

  /** Before a statement that must see this transaction's writes: the table exists and holds them. */
  private async ready(): Promise<void> {
    await this.runner.defined(this.spec);
    await this.runner.flush(this.spec.name);
  }

  /**
   * Holds `docs` (the last version of each id) when the runner holds writes; says whether it did.
   * Past HOLD_AT_MOST held, they are sent at once.
   */
  private async hold(docs: T[]): Promise<boolean> {
    const held = this.runner.held(this.spec.name, this.send);
    if (!held) return false;
    for (const doc of docs) {
      held.delete(doc.id);
      held.set(doc.id, doc);
    }
    if (held.size >= HOLD_AT_MOST) await this.runner.flush(this.spec.name);
    return true;
  }

  /** Writes held writes: the puts as one upsert (per BATCH_BYTES), the deletes as one DELETE, sent together. */
  private readonly send = async (held: HeldWrites): Promise<void> => {
    const puts: T[] = [];
    const deletes: string[] = [];
    for (const [id, doc] of held) {
      if (doc === null) deletes.push(id);
      else puts.push(doc as T);
    }
    await this.runner.defined(this.spec);
    await Promise.all([
      ...this.rowsJson(puts).map((rows) => this.runner.run(this.sql.upsertMany, [rows], true)),
      ...(deletes.length > 0 ? [this.runner.run(this.sql.deleteMany, [deletes], true)] : []),
    ]);
    this.runner.wrote(this.spec.name, held.size);
  };

  /**
   * Documents as JSON arrays of their rows, `{id, doc, <field>: text, "<field>#n": number}`, each
   * array at most BATCH_BYTES (one when they are fewer); the keys as fieldKey makes them (NaN and
   * the infinities as strings, which PostgreSQL reads as those numbers: JSON has no word for them).
   */
  private rowsJson(docs: T[]): string[] {
    const arrays: string[] = [];
    let parts: string[] = [];
    let bytes = 0;
    for (const doc of docs) {
      const record = doc as unknown as Record<string, unknown>;
      const row: Record<string, unknown> = { id: doc.id, doc };
      for (const field of this.spec.fields) {
        const [text, number] = fieldKey(record[field]);
        row[field] = text;
        row[`${field}#n`] = Number.isFinite(number) ? number : String(number);
      }
      const json = JSON.stringify(row);
      if (parts.length > 0 && bytes + json.length > BATCH_BYTES) {
        arrays.push(`[${parts.join(',')}]`);
        parts = [];
        bytes = 0;
      }
      parts.push(json);
      bytes += json.length;
    }
    if (parts.length > 0) arrays.push(`[${parts.join(',')}]`);
    return arrays;
  }

  private checkField(field: string): void {
    if (!this.fields.has(field)) throw new Error(`field ${field} is not declared on collection ${this.spec.name}`);
  }

  /**
   * The WHERE clause of a filter, its values appended to `parameters`. A field's condition is on
   * its key columns (postgres-tables.ts): an equality on both, so the index's next columns stay in
   * order; a range as a row comparison, which a btree reads as a range of the index.
   */
  private where(filter: Filter, parameters: unknown[]): string {
    const bind = (value: unknown): string => {
      parameters.push(value);
      return `$${parameters.length}`;
    };
    const key = ([text, number]: FieldKey): string => `(${bind(text)}::text, ${bind(number)}::double precision)`;
    const clauses: string[] = [];
    for (const [field, condition] of Object.entries(filter)) {
      if (field !== 'id') this.checkField(field);
      if (condition !== null && typeof condition === 'object' && '$in' in condition) {
        clauses.push(field === 'id' ? `id = ANY(${bind(condition.$in.map(String))}::text[])` : this.anyOf(field, condition.$in, bind));
      } else if (condition !== null && typeof condition === 'object') {
        const bounds = RANGE_OPERATORS.filter(([operator]) => condition[operator] !== undefined);
        // A null bound meets no value (as on the other engines: nothing compares with null).
        if (bounds.some(([operator]) => condition[operator] === null)) {
          clauses.push('false');
          continue;
        }
        for (const [operator, sql] of bounds) {
          const bound = condition[operator];
          clauses.push(field === 'id' ? `id ${sql} ${bind(String(bound))}` : `${keyColumns(field)} ${sql} ${key(fieldKey(bound))}`);
        }
        // A null value meets no range: above null's key, when no lower bound already says so.
        const lower = bounds.some(([operator]) => operator === '$gt' || operator === '$gte');
        if (field !== 'id' && bounds.length > 0 && !lower) clauses.push(`${keyColumns(field)} > ${key(NULL_KEY)}`);
      } else if (field === 'id') {
        clauses.push(condition === null ? 'false' : `id = ${bind(String(condition))}`);
      } else {
        const [text, number] = fieldKey(condition);
        clauses.push(`${textColumn(field)} = ${bind(text)}::text AND ${numberColumn(field)} = ${bind(number)}::double precision`);
      }
    }
    return clauses.length > 0 ? ` WHERE ${clauses.join(' AND ')}` : '';
  }

  /**
   * `$in` on a field: its strings, and its other values (numbers, null), each one equality on one
   * column with the other fixed, so an index reads them as a list of keys.
   */
  private anyOf(field: string, values: unknown[], bind: (value: unknown) => string): string {
    const texts: string[] = [];
    const numbers: number[] = [];
    for (const value of values) {
      const [text, number] = fieldKey(value);
      if (Number.isNaN(number)) texts.push(text);
      else numbers.push(number);
    }
    const parts: string[] = [];
    if (texts.length > 0)
      parts.push(`(${textColumn(field)} = ANY(${bind(texts)}::text[]) AND ${numberColumn(field)} = ${bind(NaN)}::double precision)`);
    if (numbers.length > 0)
      parts.push(`(${textColumn(field)} = '' AND ${numberColumn(field)} = ANY(${bind(numbers.map(String))}::double precision[]))`);
    if (parts.length === 0) return 'false';
    return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
  }
}

const RANGE_OPERATORS = [
  ['$gt', '>'],
  ['$gte', '>='],
  ['$lt', '<'],
  ['$lte', '<='],
] as const;

/**
 * A find's limit, written into its SQL rather than bound: PostgreSQL plans a bound LIMIT (in a
 * generic plan) as if it were large, and few distinct limits are asked, so the prepared statements stay few.
 */
function limitLiteral(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`find: limit must be a non-negative integer, not ${limit}`);
  return String(limit);
}
