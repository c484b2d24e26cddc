/**
 * The floor under a rebuild of the read models on SQLite: what reading the log
 * and writing the rebuilt read models' rows cost by themselves, with no
 * projection logic at all. The bench's rebuild log (bench/lib/rebuild-log.ts)
 * is replayed once by every projection as shipped; then, on this machine:
 *
 * - the log is read again in pages of 5,000 (SQLite and JSON.parse, as the
 *   runner reads it);
 * - every row the replay left is inserted again into a fresh database with the
 *   same tables, table by table, 5,000 rows a transaction: once with the
 *   indexes in place, once with the indexes built after the rows.
 *
 * The history keeps closed versions only (the open one is the current document,
 * with its `_from`: docs/audit.md "Time travel"), so its tables hold what updates
 * and deletes left; their share of the rows is printed.
 *
 * Each row is written once here, in the order it is stored; the replay also
 * updates and deletes rows (versions closed, grants retracted), reads, and
 * interleaves its tables. So the sum of the cheapest two figures is a lower
 * bound on a rebuild's time per event that writes these read models through
 * one SQLite connection, whatever the projections' own code costs.
 *
 *   REBUILD_EVENTS=100000 node -r @swc-node/register bench/rebuild-floor.ts
 *   FLOOR_WORLD=bulk node -r @swc-node/register bench/rebuild-floor.ts
 *
 * FLOOR_WORLD=bulk takes the log the bulk-load row writes instead (the full data set
 * through the bulk endpoints: 100,000 instances, 90,000 tuples, 39,000 assignments),
 * for the floor under the projections of a bulk load (REBUILD_EVENTS is refused with it).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { embeddedFeatures } from '../app/features';
import { fieldColumn } from '../shared/docstore/sqlite-document-store';
import { replayLog, replayWorld } from './lib/rebuild-log';

const { world: WORLD, open: openLog } = replayWorld('FLOOR_WORLD');
/** The rebuild row's target, 60,000 events/s, as time per event. */
const TARGET_US = 1e6 / 60_000;
/** Events per read and rows per transaction, as the runner's catch-up batches. */
const BATCH = 5000;
/** The read-model writer's page cache (shared/docstore/sqlite-document-store.ts, WRITER_CACHE_KIB). */
const CACHE_KIB = 32 * 1024;

interface Schema {
  tables: Array<{ name: string; sql: string; indexes: string[] }>;
}

async function main(): Promise<void> {
  const log = await openLog();
  const dir = mkdtempSync(join(tmpdir(), 'rebac-rebuild-floor-'));
  try {
    const { head } = log;
    const rebuilt = join(dir, 'read-models.sqlite');

    // As shipped: every projection replays the log, leaving the read models whose rows are written again below.
    const shipped = await replayLog(log, rebuilt, embeddedFeatures());
    const shippedUs = (shipped.wallS * 1e6) / head;
    console.log(
      `${head.toLocaleString('en-US')} events replayed by every projection as shipped: ${shippedUs.toFixed(1)} µs/event ` +
        `(${eventsPerSecond(shippedUs)} events/s), ${(shipped.cpuUs / head).toFixed(1)} µs CPU/event`,
    );

    // Reading the log as the runner does.
    const started = performance.now();
    let read = 0;
    for (let after = 0; ;) {
      const page = await log.events.readAll(after, BATCH);
      if (page.length === 0) break;
      read += page.length;
      after = page[page.length - 1]!.position;
    }
    const readUs = ((performance.now() - started) * 1000) / head;

    const source = new Database(rebuilt, { readonly: true });
    const schema = schemaOf(source);
    const sizes = schema.tables.map((t) => ({
      name: t.name,
      rows: count(source, t.name),
      indexes: t.indexes.length,
      versions: isVersionTable(t),
    }));
    const rows = sizes.reduce((n, t) => n + t.rows, 0);
    const entries = sizes.reduce((n, t) => n + t.rows * t.indexes, 0);
    const sizeMb = statSync(rebuilt).size / 1e6;
    console.log(
      `read models: ${rows.toLocaleString('en-US')} rows in ${schema.tables.length} tables (${(rows / head).toFixed(2)} per event), ` +
        `${entries.toLocaleString('en-US')} secondary index entries (${(entries / head).toFixed(2)} per event), ${sizeMb.toFixed(0)} MB`,
    );
    const versions = sizes.filter((t) => t.versions);
    const versionRows = versions.reduce((n, t) => n + t.rows, 0);
    const versionEntries = versions.reduce((n, t) => n + t.rows * t.indexes, 0);
    console.log(
      `  the history's closed versions: ${(versionRows / head).toFixed(2)} rows per event, ` +
        `${(versionEntries / head).toFixed(2)} index entries per event`,
    );
    const largest = sizes.sort((a, b) => b.rows - a.rows).slice(0, 6);
    console.log(
      `  most rows per event: ${largest.map((t) => `${t.name} ${(t.rows / head).toFixed(2)} (${t.indexes} indexes)`).join(', ')}`,
    );
    const indexedUs = writeRows(source, schema, join(dir, 'indexed.sqlite'), 'before') / head;
    const afterUs = writeRows(source, schema, join(dir, 'indexed-after.sqlite'), 'after') / head;
    source.close();

    const floorUs = readUs + Math.min(indexedUs, afterUs);
    console.log(`reading the log (${read.toLocaleString('en-US')} events): ${readUs.toFixed(1)} µs/event`);
    console.log(`writing the rows, indexes in place: ${indexedUs.toFixed(1)} µs/event`);
    console.log(`writing the rows, indexes built after them: ${afterUs.toFixed(1)} µs/event`);
    console.log(
      `floor (reading + the cheaper writing): ${floorUs.toFixed(1)} µs/event, ${eventsPerSecond(floorUs)} events/s, ` +
        `${((floorUs * head) / 1e6).toFixed(1)} s for the whole log; as shipped is ${(shippedUs / floorUs).toFixed(1)}× the floor`,
    );
    if (WORLD === 'rebuild')
      console.log(`the rebuild row's target allows ${TARGET_US.toFixed(1)} µs/event: ${(TARGET_US / floorUs).toFixed(2)}× the floor`);
    else
      console.log(
        `the bulk-load row's target is SpiceDB on PostgreSQL's time to load the relationships (npm run bench -- --only=peer): compare it with the ${((floorUs * head) / 1e6).toFixed(1)} s above`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await log.close();
  }
}

const eventsPerSecond = (us: number) => Math.round(1e6 / us).toLocaleString('en-US');

/** The read models' tables (`rm_*`) and their secondary indexes, as SQL. */
function schemaOf(db: Database.Database): Schema {
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm\\_%' ESCAPE '\\'").all() as Array<{
    name: string;
    sql: string;
  }>;
  const indexes = db
    .prepare("SELECT tbl_name AS tableName, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    .all() as Array<{
    tableName: string;
    sql: string;
  }>;
  return {
    tables: tables.map((t) => ({ ...t, indexes: indexes.filter((i) => i.tableName === t.name).map((i) => i.sql) })),
  };
}

type Table = Schema['tables'][number];
/** The column of the versions' `_to`. */
const TO_COLUMN = fieldColumn('_to');
/** A history table of versions (`history_<collection>`, with `_to`), not the history's clock or meta. */
const isVersionTable = (table: Table) => table.name.startsWith('rm_history_') && table.sql.includes(TO_COLUMN);

const count = (db: Database.Database, table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

/**
 * Inserts every row of `source`'s read-model tables into a new database at
 * `path`, table by table, BATCH rows a transaction, with the indexes created
 * `before` the rows or `after` them. Returns the microseconds it took, the
 * reading of the source rows left out.
 */
function writeRows(source: Database.Database, schema: Schema, path: string, indexes: 'before' | 'after'): number {
  const target = new Database(path);
  target.pragma('journal_mode = WAL');
  target.pragma('synchronous = NORMAL');
  target.pragma(`cache_size = -${CACHE_KIB}`);
  let us = 0;
  const timed = (work: () => void) => {
    const started = performance.now();
    work();
    us += (performance.now() - started) * 1000;
  };
  for (const table of schema.tables) {
    target.exec(table.sql);
    if (indexes === 'before') for (const sql of table.indexes) target.exec(sql);
    const rows = source.prepare(`SELECT * FROM ${table.name}`).raw(true).all() as unknown[][];
    if (rows.length > 0) {
      const insert = target.prepare(`INSERT INTO ${table.name} VALUES (${rows[0]!.map(() => '?').join(', ')})`);
      const batch = target.transaction((chunk: unknown[][]) => {
        for (const row of chunk) insert.run(...row);
      });
      for (let i = 0; i < rows.length; i += BATCH) {
        const chunk = rows.slice(i, i + BATCH);
        timed(() => batch(chunk));
      }
    }
    if (indexes === 'after') timed(() => table.indexes.forEach((sql) => target.exec(sql)));
  }
  timed(() => target.pragma('wal_checkpoint(TRUNCATE)'));
  target.close();
  return us;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
