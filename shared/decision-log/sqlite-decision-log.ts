import Database from 'better-sqlite3';
import { WalCheckpointer } from '../docstore/sqlite-wal-checkpointer';
import {
  idTime,
  idTimeBound,
  resourceName,
  type DecisionEntry,
  type DecisionFilter,
  type DecisionLogStore,
  type DecisionPage,
  type DecisionPageRequest,
} from './port';

/**
 * The decision log in a SQLite file of its own (not the read models' file: its appends never wait
 * for a projection batch, nor a batch for them), kept as batches: one row per appended batch of
 * an environment, its entries as one JSON array, beside what most reads need without opening it
 * (the range of its ids, how many entries, how many allowed and denied). An append is then one
 * row whatever its size: a row per entry, with the indexes its filters would want, cost the
 * checks' process three to four times what the rest of a check's logging does, and every check
 * pays for appends while only an auditor reads. Ids are UUIDv7s of the entries' times (port.ts),
 * so a time range is a range of ids, and retention drops whole batches (rewriting the one that
 * straddles the bound). Reads go newest batch first; an environment's page and its total, by
 * decision or not, come from the counts and the batches the page falls in; other filters read the
 * batches of the time range asked (an auditor narrows by time on a large log). An append is one
 * small row, written on the checks' thread (a thread of its own cost more in copying and waking
 * than the write); its checkpoints, which fsync, run on the WalCheckpointer's thread. Several
 * processes (the check workers) append to one file: WAL, and a busy wait.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS decision_batch (
  env TEXT NOT NULL,
  last_id TEXT NOT NULL,
  first_id TEXT NOT NULL,
  entries INTEGER NOT NULL,
  allowed INTEGER NOT NULL,
  denied INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (env, last_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS decision_batch_last_id ON decision_batch (last_id);
`;

/** A batch as its row. */
type DecisionBatchRow = [env: string, lastId: string, firstId: string, entries: number, allowed: number, denied: number, data: string];

interface StoredBatch {
  env: string;
  last_id: string;
  first_id: string;
  entries: number;
  allowed: number;
  denied: number;
  data?: string;
}

/**
 * A batch's entries as stored: the organisation and project once (a batch is one environment's),
 * the keys and endpoints once each, and per entry an array of its fields (most checks' input and
 * result are null: port.ts). Making this is what an append costs the checks' thread, so it is small.
 */
interface StoredEntries {
  o: string;
  p: string;
  k: Array<string | null>;
  n: string[];
  e: StoredEntry[];
}
type StoredEntry = [
  id: string,
  key: number,
  endpoint: number,
  getUserPermissions: 0 | 1,
  user: string,
  action: string | null,
  resourceType: string | null,
  resourceKey: string | null,
  tenant: string | null,
  decision: boolean | null,
  position: number,
  input: Record<string, unknown> | null,
  result: unknown,
];

function encode(list: readonly DecisionEntry[]): string {
  const keys: Array<string | null> = [];
  const endpoints: string[] = [];
  const rows: StoredEntry[] = [];
  for (const e of list) {
    let key = keys.indexOf(e.apiKeyId);
    if (key < 0) key = keys.push(e.apiKeyId) - 1;
    let endpoint = endpoints.indexOf(e.endpoint);
    if (endpoint < 0) endpoint = endpoints.push(e.endpoint) - 1;
    rows.push([
      e.id,
      key,
      endpoint,
      e.queryType === 'check' ? 0 : 1,
      e.user,
      e.action,
      e.resourceType,
      e.resourceKey,
      e.tenant,
      e.decision,
      e.position,
      e.input,
      e.result,
    ]);
  }
  const first = list[0]!;
  return JSON.stringify({ o: first.organizationId, p: first.projectId, k: keys, n: endpoints, e: rows } satisfies StoredEntries);
}

function decode(env: string, data: string): DecisionEntry[] {
  const stored = JSON.parse(data) as StoredEntries;
  return stored.e.map(
    ([id, key, endpoint, userPermissions, user, action, resourceType, resourceKey, tenant, decision, position, input, result]) => ({
      id,
      timestamp: idTime(id),
      organizationId: stored.o,
      projectId: stored.p,
      environmentId: env,
      apiKeyId: stored.k[key]!,
      endpoint: stored.n[endpoint]!,
      queryType: userPermissions ? 'get_user_permissions' : 'check',
      user,
      action,
      resourceType,
      resourceKey,
      tenant,
      decision,
      position,
      input,
      result,
    }),
  );
}

/** The rows of an append: one per environment, its entries in id order. */
function batchRowsOf(entries: readonly DecisionEntry[]): DecisionBatchRow[] {
  const byEnv = new Map<string, DecisionEntry[]>();
  for (const e of entries) {
    const list = byEnv.get(e.environmentId);
    if (list) list.push(e);
    else byEnv.set(e.environmentId, [e]);
  }
  const rows: DecisionBatchRow[] = [];
  for (const [env, list] of byEnv) {
    list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let allowed = 0;
    let denied = 0;
    for (const e of list) {
      if (e.decision === true) allowed++;
      else if (e.decision === false) denied++;
    }
    rows.push([env, list[list.length - 1]!.id, list[0]!.id, list.length, allowed, denied, encode(list)]);
  }
  return rows;
}

export class SqliteDecisionLog implements DecisionLogStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly insertAll: (rows: readonly DecisionBatchRow[]) => void;
  private readonly checkpointer: WalCheckpointer | null;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    // Checkpoints off the checks' thread; SQLite's automatic ones only if that thread cannot run.
    const db = this.db;
    db.pragma('wal_autocheckpoint = 0');
    this.checkpointer = WalCheckpointer.start(path, () => db.open && db.pragma('wal_autocheckpoint = 1000'), 1000);
    // A batch whose newest id an earlier batch of the environment ended with (a retried append) is kept once.
    this.insert = this.db.prepare('INSERT OR IGNORE INTO decision_batch VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.insertAll = this.db.transaction((rows: readonly DecisionBatchRow[]) => {
      for (const row of rows) this.insert.run(row);
    });
  }

  async append(entries: readonly DecisionEntry[]): Promise<void> {
    const rows = batchRowsOf(entries);
    if (rows.length > 0) this.insertAll(rows);
  }

  async query(filter: DecisionFilter, page: DecisionPageRequest): Promise<DecisionPage> {
    const { where, params } = rangeOf(filter);
    const direction = page.order === 'newest' ? 'DESC' : 'ASC';
    const batches = this.db
      .prepare(`SELECT env, last_id, first_id, entries, allowed, denied FROM decision_batch WHERE ${where} ORDER BY last_id ${direction}`)
      .all(...params) as StoredBatch[];
    const skip = (page.page - 1) * page.perPage;
    const matches = matcher(filter);
    // Counted from a batch's columns when the filter asks no more than they say and the batch is whole in the range.
    const countable = onlyEnvironmentTimeAndDecision(filter);
    const entries: DecisionEntry[] = [];
    let total = 0;
    for (const batch of batches) {
      const whole = countable && insideRange(batch, filter);
      const counted = whole ? countIn(batch, filter.decision) : undefined;
      const needed = total + (counted ?? batch.entries) > skip && entries.length < page.perPage;
      if (counted !== undefined && !needed) {
        total += counted;
        continue;
      }
      const found = this.entriesOf(batch).filter(matches);
      if (page.order === 'newest') found.reverse();
      for (const e of found) {
        if (total >= skip && entries.length < page.perPage) entries.push(e);
        total++;
      }
    }
    return { entries, total };
  }

  async get(environmentId: string, id: string): Promise<DecisionEntry | null> {
    const batches = this.db
      .prepare(
        'SELECT env, last_id, first_id, entries, allowed, denied FROM decision_batch WHERE env = ? AND last_id >= ? AND first_id <= ?',
      )
      .all(environmentId, id, id) as StoredBatch[];
    for (const batch of batches) {
      const found = this.entriesOf(batch).find((e) => e.id === id);
      if (found) return found;
    }
    return null;
  }

  async deleteOlderThan(timestamp: number): Promise<number> {
    const bound = idTimeBound(timestamp);
    return this.db.transaction(() => {
      const whole = this.db.prepare('SELECT coalesce(sum(entries), 0) AS n FROM decision_batch WHERE last_id < ?').get(bound) as {
        n: number;
      };
      this.db.prepare('DELETE FROM decision_batch WHERE last_id < ?').run(bound);
      let deleted = whole.n;
      const straddling = this.db
        .prepare('SELECT env, last_id, first_id, entries, allowed, denied FROM decision_batch WHERE first_id < ? AND last_id >= ?')
        .all(bound, bound) as StoredBatch[];
      for (const batch of straddling) deleted += this.keepOnly(batch, (e) => e.id >= bound);
      return deleted;
    })();
  }

  async keepNewest(max: number): Promise<number> {
    return this.db.transaction(() => {
      const batches = this.db
        .prepare('SELECT env, last_id, first_id, entries, allowed, denied FROM decision_batch ORDER BY last_id DESC')
        .all() as StoredBatch[];
      let kept = 0;
      let deleted = 0;
      const remove = this.db.prepare('DELETE FROM decision_batch WHERE env = ? AND last_id = ?');
      for (const batch of batches) {
        if (kept >= max) {
          remove.run(batch.env, batch.last_id);
          deleted += batch.entries;
        } else if (kept + batch.entries > max) {
          const room = max - kept;
          // The batch's newest `room` entries stay (a batch holds one environment's entries in id order).
          const newest = this.entriesOf(batch).slice(-room);
          const edge = newest[0]!.id;
          deleted += this.keepOnly(batch, (e) => e.id >= edge);
          kept = max;
        } else kept += batch.entries;
      }
      return deleted;
    })();
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }

  private entriesOf(batch: StoredBatch): DecisionEntry[] {
    const data =
      batch.data ??
      (this.db.prepare('SELECT data FROM decision_batch WHERE env = ? AND last_id = ?').get(batch.env, batch.last_id) as { data: string })
        .data;
    return decode(batch.env, data);
  }

  /** Rewrites a batch with only the entries `keep` says (deleting it when none is left); says how many went. */
  private keepOnly(batch: StoredBatch, keep: (e: DecisionEntry) => boolean): number {
    const kept = this.entriesOf(batch).filter(keep);
    this.db.prepare('DELETE FROM decision_batch WHERE env = ? AND last_id = ?').run(batch.env, batch.last_id);
    if (kept.length > 0) this.insert.run(batchRowsOf(kept)[0]!);
    return batch.entries - kept.length;
  }
}

/** The batches a filter may find entries in: its environment's, overlapping its time range. */
function rangeOf(filter: DecisionFilter): { where: string; params: unknown[] } {
  const clauses = ['env = ?'];
  const params: unknown[] = [filter.environmentId];
  if (filter.from !== undefined) {
    clauses.push('last_id >= ?');
    params.push(idTimeBound(filter.from));
  }
  if (filter.to !== undefined) {
    clauses.push('first_id < ?');
    params.push(idTimeBound(filter.to + 1));
  }
  return { where: clauses.join(' AND '), params };
}

const onlyEnvironmentTimeAndDecision = (f: DecisionFilter): boolean =>
  f.apiKeyIds === undefined &&
  f.users === undefined &&
  f.resources === undefined &&
  f.tenant === undefined &&
  f.action === undefined &&
  f.queryType === undefined;

/** True when every entry of the batch is within the filter's time range. */
const insideRange = (batch: StoredBatch, f: DecisionFilter): boolean =>
  (f.from === undefined || batch.first_id >= idTimeBound(f.from)) && (f.to === undefined || batch.last_id < idTimeBound(f.to + 1));

const countIn = (batch: StoredBatch, decision: boolean | undefined): number =>
  decision === undefined ? batch.entries : decision ? batch.allowed : batch.denied;

/** The filter as a test of one entry (the environment is the batch's). */
function matcher(f: DecisionFilter): (e: DecisionEntry) => boolean {
  const from = f.from === undefined ? undefined : idTimeBound(f.from);
  const to = f.to === undefined ? undefined : idTimeBound(f.to + 1);
  const keys = f.apiKeyIds && new Set(f.apiKeyIds);
  const users = f.users && new Set(f.users);
  const resources = f.resources && new Set(f.resources);
  return (e) =>
    (from === undefined || e.id >= from) &&
    (to === undefined || e.id < to) &&
    (keys === undefined || (e.apiKeyId !== null && keys.has(e.apiKeyId))) &&
    (users === undefined || users.has(e.user)) &&
    (f.decision === undefined || e.decision === f.decision) &&
    (resources === undefined || (e.resourceType !== null && (resources.has(e.resourceType) || resources.has(resourceName(e)!)))) &&
    (f.tenant === undefined || e.tenant === f.tenant) &&
    (f.action === undefined || e.action === f.action) &&
    (f.queryType === undefined || e.queryType === f.queryType);
}
