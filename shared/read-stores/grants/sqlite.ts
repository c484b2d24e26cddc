import type { SqliteStatements } from '../statements';
import type { GrantDoc, GrantIdRange, GrantNarrowing, GrantStore, HeldRole, HoldersPage, RulesDoc } from './port';
import { byBytes, GRANT_COLUMN_LIST, GRANT_COLUMNS, grantOfRow, grantRow, rulesOfText, rulesText } from './rows';

/**
 * The grants' tables on SQLite, made when the read models' file opens (SqliteDocumentStore). `rm_`
 * like every read-model table, so that emptying the read models for a rebuild empties them too.
 * The grants are clustered by their id (WITHOUT ROWID): one user's grants are a range of it, and
 * the holders index carries the id, so its pages come in (user, role) order, which is id order,
 * with no sort and no second lookup of a rowid; with the end in it too, a check's read of a user's
 * roles on an instance is the index alone. The generic collections the grants were kept in
 * before go: the grants projection's version was raised with these tables, so their rows are
 * rebuilt here from the log.
 */
export const SQLITE_GRANTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS rm_grant_rows (
  id TEXT PRIMARY KEY,
  environment_id TEXT NOT NULL,
  user TEXT NOT NULL,
  instance TEXT NOT NULL,
  resource TEXT NOT NULL,
  role TEXT NOT NULL,
  tenant TEXT NOT NULL,
  from_grant TEXT,
  assignment_id TEXT,
  tuple_id TEXT,
  rule_on_resource TEXT,
  rule_role TEXT,
  rule_relation TEXT,
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rm_grant_rows__holders ON rm_grant_rows (environment_id, instance, user, role, expires_at);
CREATE TABLE IF NOT EXISTS rm_grant_rules (environment_id TEXT PRIMARY KEY, rules TEXT NOT NULL) WITHOUT ROWID;
DROP TABLE IF EXISTS rm_derived_grants;
DROP TABLE IF EXISTS rm_derived_grant_rules;
`;

const SELECT = `SELECT ${GRANT_COLUMN_LIST} FROM rm_grant_rows`;
const INSERT = `INTO rm_grant_rows (${GRANT_COLUMN_LIST}) VALUES (${GRANT_COLUMNS.map(() => '?').join(', ')})`;
/** Keys per statement of the reads by several keys: well under SQLite's variable limit, few distinct statements. */
const KEYS_PER_READ = 500;

/** The grants' read store on SQLite: plain SQL on `rm_grant_rows` and `rm_grant_rules`. */
export class SqliteGrantStore implements GrantStore {
  constructor(private readonly source: SqliteStatements) {}

  async get(id: string): Promise<GrantDoc | null> {
    const row = this.source.statement(`${SELECT} WHERE id = ?`).raw(true).get(id) as unknown[] | undefined;
    return row ? grantOfRow(row) : null;
  }

  async byIds(ids: readonly string[]): Promise<GrantDoc[]> {
    const out: GrantDoc[] = [];
    for (let i = 0; i < ids.length; i += KEYS_PER_READ) {
      const chunk = ids.slice(i, i + KEYS_PER_READ);
      out.push(...this.rows(`${SELECT} WHERE id IN (${marks(chunk.length)})`, chunk));
    }
    return out;
  }

  async userRange(range: GrantIdRange, narrowing: GrantNarrowing = {}, page: { limit?: number; skip?: number } = {}): Promise<GrantDoc[]> {
    const where = narrowed(narrowing);
    const sql = `${SELECT} WHERE id > ? AND id < ?${where.sql} ORDER BY id${limitClause(page.limit, page.skip)}`;
    return this.rows(sql, [range.after, range.before, ...where.values]);
  }

  async countUserRange(range: GrantIdRange, narrowing: GrantNarrowing = {}, atMost?: number): Promise<number> {
    const where = narrowed(narrowing);
    const inner = `SELECT 1 FROM rm_grant_rows WHERE id > ? AND id < ?${where.sql}${limitClause(atMost)}`;
    const [n] = this.source
      .statement(`SELECT COUNT(*) FROM (${inner})`)
      .raw(true)
      .get(range.after, range.before, ...where.values) as [number];
    return n;
  }

  async holders(environmentId: string, instance: string, page: HoldersPage = {}): Promise<GrantDoc[]> {
    const values: unknown[] = [environmentId, instance];
    let sql = `${SELECT} WHERE environment_id = ? AND instance = ?`;
    if (page.afterUser !== undefined) {
      sql += ' AND user > ?';
      values.push(page.afterUser);
    }
    if (page.users !== undefined) {
      if (page.users.length === 0) return [];
      sql += ` AND user IN (${marks(page.users.length)})`;
      values.push(...page.users);
    }
    const where = narrowed(page);
    sql += `${where.sql} ORDER BY user, role${limitClause(page.limit)}`;
    return this.rows(sql, [...values, ...where.values]);
  }

  async userOn(environmentId: string, user: string, instances: readonly string[], narrowing: GrantNarrowing = {}): Promise<GrantDoc[]> {
    const where = narrowed(narrowing);
    const out: GrantDoc[] = [];
    for (let i = 0; i < instances.length; i += KEYS_PER_READ) {
      const chunk = instances.slice(i, i + KEYS_PER_READ);
      const on = chunk.length === 1 ? 'instance = ?' : `instance IN (${marks(chunk.length)})`;
      out.push(
        ...this.rows(`${SELECT} WHERE environment_id = ? AND ${on} AND user = ?${where.sql}`, [
          environmentId,
          ...chunk,
          user,
          ...where.values,
        ]),
      );
    }
    return out.sort((a, b) => byBytes(a.id, b.id));
  }

  async rolesOn(environmentId: string, user: string, instance: string, roles?: readonly string[]): Promise<HeldRole[]> {
    const where = narrowed({ roles });
    return this.source
      .statement(
        `SELECT id, role, expires_at FROM rm_grant_rows WHERE environment_id = ? AND instance = ? AND user = ?${where.sql} ORDER BY role`,
      )
      .all(environmentId, instance, user, ...where.values) as HeldRole[];
  }

  async onInstances(environmentId: string, instances: readonly string[], limit: number): Promise<GrantDoc[]> {
    if (instances.length === 0) return [];
    return this.rows(`${SELECT} WHERE environment_id = ? AND instance IN (${marks(instances.length)})${limitClause(limit)}`, [
      environmentId,
      ...instances,
    ]);
  }

  async ofEnvironment(environmentId: string): Promise<GrantDoc[]> {
    return this.rows(`${SELECT} WHERE environment_id = ? ORDER BY id`, [environmentId]);
  }

  async count(): Promise<number> {
    const [n] = this.source.statement('SELECT COUNT(*) FROM rm_grant_rows').raw(true).get() as [number];
    return n;
  }

  insertMissing(grants: readonly GrantDoc[]): Promise<GrantDoc[]> {
    return this.source.writing(() => {
      const statement = this.source.statement(`INSERT ${INSERT} ON CONFLICT (id) DO NOTHING`, true);
      return grants.filter((grant) => statement.run(...grantRow(grant)).changes === 1);
    });
  }

  async put(grants: readonly GrantDoc[]): Promise<void> {
    await this.source.writing(() => {
      const statement = this.source.statement(`INSERT OR REPLACE ${INSERT}`, true);
      for (const grant of grants) statement.run(...grantRow(grant));
    });
  }

  delete(ids: readonly string[]): Promise<number> {
    return this.source.writing(() => {
      const statement = this.source.statement('DELETE FROM rm_grant_rows WHERE id = ?', true);
      let deleted = 0;
      for (const id of ids) deleted += statement.run(id).changes;
      return deleted;
    });
  }

  async rules(environmentId: string): Promise<RulesDoc | null> {
    const row = this.source.statement('SELECT rules FROM rm_grant_rules WHERE environment_id = ?').raw(true).get(environmentId) as
      [string] | undefined;
    return row ? rulesOfText(environmentId, row[0]) : null;
  }

  async putRules(rules: RulesDoc): Promise<void> {
    await this.source.writing(() =>
      this.source
        .statement('INSERT OR REPLACE INTO rm_grant_rules (environment_id, rules) VALUES (?, ?)', true)
        .run(rules.id, rulesText(rules)),
    );
  }

  private rows(sql: string, values: readonly unknown[]): GrantDoc[] {
    return (
      this.source
        .statement(sql)
        .raw(true)
        .all(...values) as unknown[][]
    ).map(grantOfRow);
  }
}

const marks = (n: number): string => new Array<string>(n).fill('?').join(', ');

/**
 * A limit (and offset) written into the SQL rather than bound: a bound LIMIT made SQLite take much
 * longer over an indexed lookup of a few rows (as the document store found). Few distinct ones are asked.
 */
function limitClause(limit: number | undefined, skip?: number): string {
  if (limit === undefined && !skip) return '';
  for (const n of [limit, skip]) {
    if (n !== undefined && (!Number.isSafeInteger(n) || n < 0))
      throw new Error(`grants: a page's limit and skip are non-negative integers, not ${n}`);
  }
  return ` LIMIT ${limit ?? -1}${skip ? ` OFFSET ${skip}` : ''}`;
}

/** The narrowing as conditions after a WHERE's index conditions, and their values. */
function narrowed(narrowing: GrantNarrowing): { sql: string; values: unknown[] } {
  let sql = '';
  const values: unknown[] = [];
  for (const [column, list] of [
    ['role', narrowing.roles],
    ['tenant', narrowing.tenants],
    ['resource', narrowing.resources],
  ] as const) {
    if (list === undefined) continue;
    sql += list.length === 0 ? ' AND 0' : ` AND ${column} IN (${marks(list.length)})`;
    values.push(...list);
  }
  return { sql, values };
}
