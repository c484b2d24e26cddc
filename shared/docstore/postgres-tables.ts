import type { PostgresPool } from '../eventstore/postgres-connection';
import type { CollectionSpec, FieldValue } from './port';

/**
 * The read models' tables on PostgreSQL, created by the service in a schema of their own
 * (POSTGRES_READ_MODELS_SCHEMA), beside the event log's tables in the same database.
 *
 * A collection is the table `<schema>.rm_<name>`:
 *   id       text COLLATE "C" PRIMARY KEY  -- the port compares strings by their bytes
 *   doc      jsonb NOT NULL                -- the document
 *   "<f>"    text COLLATE "C"              -- per declared field f, its key's text (see below)
 *   "<f>#n"  double precision              -- and its key's number
 * and each declared index is a btree on the two columns of each of its fields, then id.
 *
 * Why two columns per field: the port orders a field's values null first, then numbers, then
 * strings by their bytes (value-order.ts), whatever the type of each document's value, and one
 * btree must give that order. So a field is kept as its key in that order, both columns NOT NULL:
 *   a string s         ('s', NaN)
 *   a number n         ('',  n)         booleans as 0 and 1, as the port says
 *   null, or absent    ('',  -Infinity)
 * and (text, number) sorts null < numbers < strings (NaN is above every number in PostgreSQL,
 * and equal to itself). Not null, so that an equality on a field is an equality on both columns:
 * the planner then knows the leading columns of an index fixed, and reads the rest of it in order
 * (a sort or keyset page on the next field needs no sort step; `col IS NULL` does not tell it so).
 * The text column holds the string as it is, so `WHERE "key" = 'alice'` is also how a person
 * queries a table by hand.
 *
 * The adapter writes a row's field columns with its document, computed from it as `fieldKey`
 * does; the schema's functions `field_text(jsonb)` and `field_number(jsonb)` compute the same in
 * SQL (a test checks they agree), and fill the columns of a field declared later for the rows
 * already there. (Generated columns would compute them on the server instead, but PostgreSQL
 * prepares their expressions again for every statement: a statement of one row paid for it more
 * than for its insert.)
 */

/** The table of a collection, schema-qualified and quoted. */
export const tableName = (schema: string, collection: string): string => `"${schema}"."rm_${collection}"`;

/** The checkpoints' table (the projections' positions, leases). */
export const checkpointsTable = (schema: string): string => `"${schema}"."rm_checkpoints"`;

/** The text column of a declared field (quoted). */
export const textColumn = (field: string): string => `"${field}"`;
/** The number column of a declared field (quoted). */
export const numberColumn = (field: string): string => `"${field}#n"`;

/** The two columns a value's key is compared on, in order: `("f", "f#n")`. */
export const keyColumns = (field: string): string => `(${textColumn(field)}, ${numberColumn(field)})`;

/** A value's key: what the field's two columns hold for it (see the file comment). */
export type FieldKey = [text: string, number: number];

/** The key of null (and of an absent field). */
export const NULL_KEY: FieldKey = ['', -Infinity];

/** The key of a field value: what the field's two columns hold for it. */
export function fieldKey(value: unknown): FieldKey {
  if (value === null || value === undefined) return NULL_KEY;
  if (typeof value === 'string') return [value, NaN];
  if (typeof value === 'number') return ['', value];
  if (typeof value === 'boolean') return ['', value ? 1 : 0];
  // Declared fields hold scalars; anything else is compared as its JSON text (as the other adapters do).
  return [JSON.stringify(value), NaN];
}

/** A field's value back from its two columns (what `find` with `fields` returns). */
export function fieldValue(text: string, number: number): FieldValue {
  if (Number.isNaN(number)) return text;
  if (number === -Infinity) return null;
  return number;
}

/** Names the adapter puts in SQL unquoted-safe: collections and fields are code's names, never input. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkName(kind: string, name: string): void {
  if (!NAME.test(name) || name.length > 50) throw new Error(`invalid ${kind} name ${name}`);
  // A field's text column is named as the field: `id` and `doc` are the table's own.
  if (kind === 'field' && (name === 'id' || name === 'doc')) throw new Error(`a declared field may not be named ${name} on PostgreSQL`);
}

/** An advisory lock key (its own 64-bit space per database) that DDL of the read models serialises on. */
const DDL_LOCK = 0x7265_6261_6310; // "rebac" 10

/**
 * The schema, the functions that compute a field's key in SQL, and the checkpoints' table, when missing. Idempotent,
 * under the DDL lock: several processes may start at once (and `CREATE ... IF NOT EXISTS` alone
 * races on PostgreSQL's catalogues).
 */
export async function defineSchema(sql: PostgresPool, schema: string): Promise<void> {
  checkName('schema', schema);
  const [made] = await sql<[{ made: boolean }]>`
    SELECT to_regprocedure(${`"${schema}".field_number(jsonb)`}) IS NOT NULL
       AND to_regclass(${`"${schema}".rm_checkpoints`}) IS NOT NULL AS made`;
  // Made already: nothing to write (a service may then start on a read-only server, to read).
  if (made?.made) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${DDL_LOCK})`;
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    // The two halves of a field's key (see the file comment), computed from the document's value:
    // to fill the columns of a field declared later, and for queries by hand.
    await tx.unsafe(`
CREATE OR REPLACE FUNCTION "${schema}".field_text(value jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(value)
    WHEN 'string' THEN value #>> '{}'
    WHEN 'object' THEN value::text
    WHEN 'array'  THEN value::text
    ELSE '' END
$$`);
    await tx.unsafe(`
CREATE OR REPLACE FUNCTION "${schema}".field_number(value jsonb) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(value)
    WHEN 'number'  THEN value::double precision
    WHEN 'boolean' THEN CASE WHEN value::boolean THEN 1 ELSE 0 END
    WHEN 'string'  THEN 'NaN'
    WHEN 'object'  THEN 'NaN'
    WHEN 'array'   THEN 'NaN'
    ELSE '-Infinity' END
$$`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${checkpointsTable(schema)} (
  name     text COLLATE "C" PRIMARY KEY,
  position bigint NOT NULL
)`);
  });
}

/**
 * Creates the table of `spec` with its field columns and declared indexes, adds the columns of
 * fields declared since, and drops the indexes this adapter made that are no longer declared
 * (they would only cost every write). What exists is read first, without locks: DDL on a table
 * waits for the transactions that wrote to it (an open projection batch), and makes every query
 * of the table wait behind it, so a process starting while the tables are as declared runs none.
 * What is missing is made under the DDL lock, in one transaction.
 */
export async function defineTable(sql: PostgresPool, schema: string, spec: CollectionSpec): Promise<void> {
  checkName('collection', spec.name);
  for (const field of spec.fields) checkName('field', field);
  for (const index of spec.indexes) {
    for (const field of index) if (!spec.fields.includes(field)) throw new Error(`index field ${field} is not declared on ${spec.name}`);
  }
  if ((await missingDefinitions(sql, schema, spec)).length === 0) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${DDL_LOCK})`;
    // Looked at again under the lock: another process may have made them meanwhile.
    for (const statement of await missingDefinitions(tx as unknown as PostgresPool, schema, spec)) await tx.unsafe(statement);
  });
}

/** The DDL that would make the table of `spec` as declared (none when it is). */
async function missingDefinitions(sql: PostgresPool, schema: string, spec: CollectionSpec): Promise<string[]> {
  const table = tableName(schema, spec.name);
  const relation = `rm_${spec.name}`;
  const columns = await sql<Array<{ name: string }>>`
    SELECT attname AS name FROM pg_attribute
    WHERE attrelid = to_regclass(${`${schema}.${relation}`}) AND attnum > 0 AND NOT attisdropped`;
  const indexes = await sql<Array<{ name: string }>>`
    SELECT indexname AS name FROM pg_indexes WHERE schemaname = ${schema} AND tablename = ${relation}`;
  const statements: string[] = [];
  if (columns.length === 0) {
    statements.push(`CREATE TABLE ${table} (
  id  text COLLATE "C" PRIMARY KEY,
  doc jsonb NOT NULL${spec.fields.flatMap((field) => fieldColumns(field).map((c) => `,\n  ${c}`)).join('')}
)`);
  } else {
    // A field declared since the table was made: its columns, computed for the rows already there.
    const present = new Set(columns.map((c) => c.name));
    for (const field of spec.fields) {
      if (present.has(field)) continue;
      const [text, number] = [textColumn(field), numberColumn(field)];
      statements.push(
        `ALTER TABLE ${table} ADD COLUMN ${fieldColumns(field).join(', ADD COLUMN ')}`,
        `UPDATE ${table} SET ${text} = "${schema}".field_text(doc -> '${field}'), ${number} = "${schema}".field_number(doc -> '${field}') WHERE doc ? '${field}'`,
      );
    }
  }
  const existing = new Set(indexes.map((i) => i.name));
  const declared = new Set<string>();
  for (const index of spec.indexes) {
    const name = indexName(spec.name, index);
    declared.add(name);
    // The fields' keys in the index's order, then id: equalities on the leading fields leave the
    // rest in order, so a sort on the next field (id the tiebreak) is read from the index as it is.
    const keys = [...index.flatMap((field) => [textColumn(field), numberColumn(field)]), 'id'];
    if (!existing.has(name)) statements.push(`CREATE INDEX "${name}" ON ${table} (${keys.join(', ')})`);
  }
  for (const name of existing) {
    if (name.startsWith(`${relation}__`) && !declared.has(name)) statements.push(`DROP INDEX "${schema}"."${name}"`);
  }
  return statements;
}

/** An index's name: `rm_<collection>__<field>_<field>` (what the adapter recognises as its own), cut to PostgreSQL's 63 bytes. */
function indexName(collection: string, fields: string[]): string {
  const name = `rm_${collection}__${fields.join('_')}`;
  if (name.length <= 63) return name;
  // Long names would be truncated by PostgreSQL and could collide: a short hash keeps them apart.
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return `${name.slice(0, 54)}_${(hash >>> 0).toString(36)}`;
}

/** The two columns of a declared field (see the file comment). */
function fieldColumns(field: string): string[] {
  return [
    `${textColumn(field)} text COLLATE "C" NOT NULL DEFAULT ''`,
    `${numberColumn(field)} double precision NOT NULL DEFAULT '-Infinity'`,
  ];
}

/**
 * Runs `statements` (a domain store's DDL, shared/read-stores/) in one transaction under the DDL
 * lock. The caller looks first, without a lock, whether they are needed.
 */
export async function defineUnderLock(sql: PostgresPool, statements: string[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${DDL_LOCK})`;
    for (const statement of statements) await tx.unsafe(statement);
  });
}

/** Empties every read-model table and the checkpoints (in one statement, one transaction). */
export async function emptyAllTables(sql: PostgresPool, schema: string): Promise<void> {
  const tables = await sql<Array<{ name: string }>>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema} AND tablename LIKE 'rm\\_%'`;
  if (tables.length === 0) return;
  await sql.unsafe(`TRUNCATE ${tables.map(({ name }) => `"${schema}"."${name}"`).join(', ')}`);
}
