import type { PostgresPool } from '../../eventstore/postgres-connection';
import type { PostgresStatements } from '../statements';
import type { GrantDoc, GrantIdRange, GrantNarrowing, GrantStore, HeldRole, HoldersPage, RulesDoc } from './port';
import { byBytes, GRANT_COLUMN_LIST, GRANT_COLUMNS, grantOfRow, recordOf, rulesOfText, rulesText } from './rows';

const grantsTable = (schema: string): string => `"${schema}"."rm_grant_rows"`;
const rulesTable = (schema: string): string => `"${schema}"."rm_grant_rules"`;

/**
 * The statements that make the grants' tables and the holders index (see the SQLite schema for the
 * layout, and why the generic collections of before go). Text compares in byte order (`C`), the
 * order the grant ids are built for. Run by the document store when it connects, under its DDL
 * lock, only when the tables are missing.
 */
export function postgresGrantsSchema(schema: string): string[] {
  const grants = grantsTable(schema);
  return [
    `CREATE TABLE IF NOT EXISTS ${grants} (
  id text COLLATE "C" PRIMARY KEY,
  environment_id text COLLATE "C" NOT NULL,
  "user" text COLLATE "C" NOT NULL,
  instance text COLLATE "C" NOT NULL,
  resource text COLLATE "C" NOT NULL,
  role text COLLATE "C" NOT NULL,
  tenant text COLLATE "C" NOT NULL,
  from_grant text COLLATE "C",
  assignment_id text,
  tuple_id text,
  rule_on_resource text,
  rule_role text,
  rule_relation text,
  expires_at text,
  created_at text NOT NULL,
  updated_at text NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS rm_grant_rows__holders ON ${grants} (environment_id, instance, "user", role, expires_at)`,
    `CREATE TABLE IF NOT EXISTS ${rulesTable(schema)} (environment_id text COLLATE "C" PRIMARY KEY, rules text NOT NULL)`,
    `DROP TABLE IF EXISTS "${schema}"."rm_derived_grants"`,
    `DROP TABLE IF EXISTS "${schema}"."rm_derived_grant_rules"`,
  ];
}

/** Whether the grants' tables are there (read without a lock: a service may start on a read-only server). */
export async function postgresGrantsTablesExist(sql: PostgresPool, schema: string): Promise<boolean> {
  const [row] = await sql<[{ made: boolean }]>`SELECT to_regclass(${`"${schema}".rm_grant_rows`}) IS NOT NULL
    AND to_regclass(${`"${schema}".rm_grant_rules`}) IS NOT NULL AS made`;
  return row?.made === true;
}

/** The narrowing's parameters: null admits any value (one statement whatever is narrowed). */
const narrowingValues = (n: GrantNarrowing): unknown[] => [n.roles ?? null, n.tenants ?? null, n.resources ?? null];
/** The narrowing's conditions, on parameters `$k`, `$k+1`, `$k+2` (narrowingValues). */
const narrowingSql = (k: number): string =>
  ` AND ($${k}::text[] IS NULL OR role = ANY($${k}::text[]))` +
  ` AND ($${k + 1}::text[] IS NULL OR tenant = ANY($${k + 1}::text[]))` +
  ` AND ($${k + 2}::text[] IS NULL OR resource = ANY($${k + 2}::text[]))`;

/** Rows per insert statement (one parameter: their JSON array). */
const ROWS_PER_STATEMENT = 1000;

/**
 * The grants' read store on PostgreSQL: SQL on `<schema>.rm_grant_rows` and `<schema>.rm_grant_rules`,
 * each statement prepared once per connection. A batch of grants is written as one statement, its
 * rows one JSON parameter (`jsonb_to_recordset`); an insert of those missing says which went in
 * (`RETURNING id`) in the same round trip.
 */
export class PostgresGrantStore implements GrantStore {
  private readonly sql: Record<
    | 'get'
    | 'byIds'
    | 'userRange'
    | 'countUserRange'
    | 'holders'
    | 'userOn'
    | 'rolesOn'
    | 'onInstances'
    | 'ofEnvironment'
    | 'count'
    | 'insertMissing'
    | 'put'
    | 'delete'
    | 'rules'
    | 'putRules',
    string
  >;

  constructor(private readonly runner: PostgresStatements) {
    const table = grantsTable(runner.schema);
    const select = `SELECT ${GRANT_COLUMN_LIST} FROM ${table}`;
    const types = GRANT_COLUMNS.map((column) => `${column === 'user' ? '"user"' : column} text`).join(', ');
    const rows = `SELECT ${GRANT_COLUMN_LIST} FROM jsonb_to_recordset($1::text::jsonb) AS r(${types})`;
    const replaced = GRANT_COLUMNS.filter((c) => c !== 'id')
      .map((c) => (c === 'user' ? '"user" = EXCLUDED."user"' : `${c} = EXCLUDED.${c}`))
      .join(', ');
    this.sql = {
      get: `${select} WHERE id = $1`,
      byIds: `${select} WHERE id = ANY($1::text[])`,
      // $3: the limit (null: all), $4: the rows skipped.
      userRange: `${select} WHERE id > $1 AND id < $2${narrowingSql(5)} ORDER BY id LIMIT $3 OFFSET $4`,
      countUserRange: `SELECT COUNT(*)::int FROM (SELECT 1 FROM ${table} WHERE id > $1 AND id < $2${narrowingSql(4)} LIMIT $3) AS kept`,
      holders: `${select} WHERE environment_id = $1 AND instance = $2 AND ($3::text IS NULL OR "user" > $3)
        AND ($4::text[] IS NULL OR "user" = ANY($4::text[]))${narrowingSql(6)} ORDER BY "user", role LIMIT $5`,
      userOn: `${select} WHERE environment_id = $1 AND instance = ANY($2::text[]) AND "user" = $3${narrowingSql(4)}`,
      rolesOn: `SELECT id, role, expires_at FROM ${table} WHERE environment_id = $1 AND instance = $2 AND "user" = $3
        AND ($4::text[] IS NULL OR role = ANY($4::text[])) ORDER BY role`,
      onInstances: `${select} WHERE environment_id = $1 AND instance = ANY($2::text[]) LIMIT $3`,
      ofEnvironment: `${select} WHERE environment_id = $1 ORDER BY id`,
      count: `SELECT COUNT(*)::int FROM ${table}`,
      insertMissing: `INSERT INTO ${table} (${GRANT_COLUMN_LIST}) ${rows} ON CONFLICT (id) DO NOTHING RETURNING id`,
      put: `INSERT INTO ${table} (${GRANT_COLUMN_LIST}) ${rows} ON CONFLICT (id) DO UPDATE SET ${replaced}`,
      delete: `DELETE FROM ${table} WHERE id = ANY($1::text[]) RETURNING 1`,
      rules: `SELECT rules FROM ${rulesTable(runner.schema)} WHERE environment_id = $1`,
      putRules: `INSERT INTO ${rulesTable(runner.schema)} (environment_id, rules) VALUES ($1, $2)
        ON CONFLICT (environment_id) DO UPDATE SET rules = EXCLUDED.rules`,
    };
  }

  async get(id: string): Promise<GrantDoc | null> {
    const [row] = await this.runner.run(this.sql.get, [id]);
    return row ? grantOfRow(row) : null;
  }

  async byIds(ids: readonly string[]): Promise<GrantDoc[]> {
    if (ids.length === 0) return [];
    return this.rows(this.sql.byIds, [ids]);
  }

  userRange(range: GrantIdRange, narrowing: GrantNarrowing = {}, page: { limit?: number; skip?: number } = {}): Promise<GrantDoc[]> {
    return this.rows(this.sql.userRange, [range.after, range.before, page.limit ?? null, page.skip ?? 0, ...narrowingValues(narrowing)]);
  }

  async countUserRange(range: GrantIdRange, narrowing: GrantNarrowing = {}, atMost?: number): Promise<number> {
    const [[n]] = (await this.runner.run(this.sql.countUserRange, [
      range.after,
      range.before,
      atMost ?? null,
      ...narrowingValues(narrowing),
    ])) as [[number]];
    return n;
  }

  async holders(environmentId: string, instance: string, page: HoldersPage = {}): Promise<GrantDoc[]> {
    if (page.users !== undefined && page.users.length === 0) return [];
    return this.rows(this.sql.holders, [
      environmentId,
      instance,
      page.afterUser ?? null,
      page.users ?? null,
      page.limit ?? null,
      ...narrowingValues(page),
    ]);
  }

  async userOn(environmentId: string, user: string, instances: readonly string[], narrowing: GrantNarrowing = {}): Promise<GrantDoc[]> {
    if (instances.length === 0) return [];
    const grants = await this.rows(this.sql.userOn, [environmentId, instances, user, ...narrowingValues(narrowing)]);
    return grants.sort((a, b) => byBytes(a.id, b.id));
  }

  async rolesOn(environmentId: string, user: string, instance: string, roles?: readonly string[]): Promise<HeldRole[]> {
    const rows = await this.runner.run(this.sql.rolesOn, [environmentId, instance, user, roles ?? null]);
    return rows.map(([id, role, end]) => ({ id: id as string, role: role as string, expires_at: (end as string | null) ?? null }));
  }

  async onInstances(environmentId: string, instances: readonly string[], limit: number): Promise<GrantDoc[]> {
    if (instances.length === 0) return [];
    return this.rows(this.sql.onInstances, [environmentId, instances, limit]);
  }

  ofEnvironment(environmentId: string): Promise<GrantDoc[]> {
    return this.rows(this.sql.ofEnvironment, [environmentId]);
  }

  async count(): Promise<number> {
    const [[n]] = (await this.runner.run(this.sql.count, [])) as [[number]];
    return n;
  }

  async insertMissing(grants: readonly GrantDoc[]): Promise<GrantDoc[]> {
    if (grants.length === 0) return [];
    // Of a repeated id, the first is the one inserted (as sequential inserts would).
    const first = new Map<string, GrantDoc>();
    for (const grant of grants) if (!first.has(grant.id)) first.set(grant.id, grant);
    const inserted = new Set<string>();
    for (const rows of rowsJson([...first.values()])) {
      for (const [id] of await this.runner.run(this.sql.insertMissing, [rows], true)) inserted.add(id as string);
    }
    return [...first.values()].filter((grant) => inserted.has(grant.id));
  }

  async put(grants: readonly GrantDoc[]): Promise<void> {
    // Of a repeated id, the last one given stays (as sequential writes would); one statement cannot touch a row twice.
    const last = new Map<string, GrantDoc>();
    for (const grant of grants) {
      last.delete(grant.id);
      last.set(grant.id, grant);
    }
    for (const rows of rowsJson([...last.values()])) await this.runner.run(this.sql.put, [rows], true);
  }

  async delete(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    // The runner answers rows: one per grant deleted.
    const rows = await this.runner.run(this.sql.delete, [[...new Set(ids)]], true);
    return rows.length;
  }

  async rules(environmentId: string): Promise<RulesDoc | null> {
    const [row] = await this.runner.run(this.sql.rules, [environmentId]);
    return row ? rulesOfText(environmentId, row[0] as string) : null;
  }

  async putRules(rules: RulesDoc): Promise<void> {
    await this.runner.run(this.sql.putRules, [rules.id, rulesText(rules)], true);
  }

  private async rows(sql: string, parameters: unknown[]): Promise<GrantDoc[]> {
    return (await this.runner.run(sql, parameters)).map(grantOfRow);
  }
}

/** The grants as JSON arrays of records, ROWS_PER_STATEMENT each (the insert statements' one parameter). */
function rowsJson(grants: GrantDoc[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < grants.length; i += ROWS_PER_STATEMENT)
    out.push(JSON.stringify(grants.slice(i, i + ROWS_PER_STATEMENT).map(recordOf)));
  return out;
}
