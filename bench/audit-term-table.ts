/**
 * Whether the audit index could be a table of the engine's (docs/read-stores.md, issue 45) at no
 * cost to the rebuild: the rebuild log (bench/rebuild-breakdown.ts's, REBUILD_EVENTS events in one
 * environment) replayed in this process into a fresh SQLite read-model file, by the core
 * projections alone, with today's audit index (postings documents), and with a prototype of a
 * native term table instead, in rounds that alternate the variants. Prints CPU per event of each
 * replay, then, on the prototypes' tables, the latency of the audit page's query shapes.
 *
 *   REBUILD_EVENTS=100000 AUDIT_ROUNDS=3 node -r @swc-node/register bench/audit-term-table.ts
 *   REBUILD_EVENTS=1000000 AUDIT_ROUNDS=1 AUDIT_VARIANTS=core,postings,rows,fts5 node -r @swc-node/register bench/audit-term-table.ts
 *
 * AUDIT_VARIANTS picks variants (core, postings, rows, runs, sorted, fts5; default all),
 * AUDIT_PAGES=false skips the page latencies, REBUILD_WORLD=bulk replays the bulk load's log.
 * The figures and what they say: docs/read-stores.md, "The audit index".
 *
 * The prototypes (not the service's code; the event's own stream is its one scope, which is
 * exact for this log, which has no copy tasks):
 * - `rows`: an entry row per event `(scope, position)`, and a row per (scope, term, position),
 *   both WITHOUT ROWID tables: a filter is a range of the term table's primary key.
 * - `runs`: the same entries, and a row per run of consecutive events of the scope that carry
 *   a term `(scope, term, start) → end`, the runs a batch touched written once at its end.
 * - `sorted`: `rows` with terms interned as integers and a batch's rows inserted in key order.
 * - `fts5`: a contentless FTS5 table, a row per event, its terms as tokens.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Feature } from '../app/feature';
import { embeddedFeatures } from '../app/features';
import { termsOf } from '../projection-service/audit/audit-projection';
import type { DomainEvent, RecordedEvent, RecordedOf } from '../shared/events';
import { eventTypes, isDomainEvent, streamKinds } from '../shared/events';
import type { Projection } from '../shared/read-models/projection';
import type { ReadModels } from '../shared/read-models/read-models';
import { replayLog, replayWorld } from './lib/rebuild-log';

type Statements = { statement(sql: string): Database.Statement };

const ENTRIES = `CREATE TABLE IF NOT EXISTS rm_proto_entries (scope INTEGER NOT NULL, position INTEGER NOT NULL, version INTEGER NOT NULL,
  time INTEGER NOT NULL, PRIMARY KEY (scope, position)) WITHOUT ROWID`;

/** What both prototypes share: scopes as small integers, an entry row per event. */
abstract class Prototype implements Projection {
  readonly version = 1;
  readonly handles: ReadonlySet<DomainEvent['type']> = new Set(streamKinds.flatMap((kind) => eventTypes[kind]));
  protected readonly scopes = new Map<string, number>();
  protected readonly db: Statements;
  private readonly insertEntry: Database.Statement;

  constructor(
    readonly name: string,
    rm: ReadModels,
    ddl: string,
  ) {
    this.db = rm.store as unknown as Statements;
    for (const statement of [ENTRIES, ddl]) this.db.statement(statement).run();
    this.insertEntry = this.db.statement('INSERT OR REPLACE INTO rm_proto_entries VALUES (?, ?, ?, ?)');
  }

  protected scopeOf(streamId: string): number {
    let code = this.scopes.get(streamId);
    if (code === undefined) this.scopes.set(streamId, (code = this.scopes.size + 1));
    return code;
  }

  async apply(event: RecordedOf<DomainEvent>): Promise<void> {
    const scope = this.scopeOf(event.streamId);
    this.insertEntry.run(scope, event.position, event.streamVersion, Date.parse(event.metadata.timestamp) || 0);
    this.terms(scope, event, termsOf(event));
  }

  protected abstract terms(scope: number, event: RecordedEvent, terms: string[]): void;
}

class TermRows extends Prototype {
  private readonly insert: Database.Statement;
  constructor(rm: ReadModels) {
    super(
      'proto-rows',
      rm,
      `CREATE TABLE IF NOT EXISTS rm_proto_terms (scope INTEGER NOT NULL, term TEXT NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (scope, term, position)) WITHOUT ROWID`,
    );
    this.insert = this.db.statement('INSERT OR REPLACE INTO rm_proto_terms VALUES (?, ?, ?)');
  }
  protected terms(scope: number, event: RecordedEvent, terms: string[]): void {
    for (const term of terms) this.insert.run(scope, term, event.position);
  }
}

class TermRuns extends Prototype {
  private readonly put: Database.Statement;
  /** The current run of each (scope, term), by `<scope>|<term>`: [start, end]. */
  private readonly runs = new Map<string, [number, number, number, string]>();
  private readonly dirty = new Set<[number, number, number, string]>();
  private readonly last = new Map<number, number>();
  private batchEnd: number | null = null;
  constructor(rm: ReadModels) {
    super(
      'proto-runs',
      rm,
      `CREATE TABLE IF NOT EXISTS rm_proto_runs (scope INTEGER NOT NULL, term TEXT NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL,
        PRIMARY KEY (scope, term, start)) WITHOUT ROWID`,
    );
    this.put = this.db.statement('INSERT OR REPLACE INTO rm_proto_runs VALUES (?, ?, ?, ?)');
  }
  async prepare(batch: RecordedEvent[]): Promise<void> {
    this.dirty.clear();
    this.batchEnd = batch.filter((event) => isDomainEvent(event)).at(-1)?.position ?? null;
  }
  protected terms(scope: number, event: RecordedEvent, terms: string[]): void {
    const previous = this.last.get(scope) ?? 0;
    for (const term of terms) {
      const key = `${scope}|${term}`;
      let run = this.runs.get(key);
      if (run && run[1] === previous) run[1] = event.position;
      else this.runs.set(key, (run = [event.position, event.position, scope, term]));
      this.dirty.add(run);
    }
    this.last.set(scope, event.position);
    if (this.batchEnd === null || event.position >= this.batchEnd) {
      for (const [start, end, s, term] of this.dirty) this.put.run(s, term, start, end);
      this.dirty.clear();
      if (this.runs.size > 5000) for (const key of [...this.runs.keys()].slice(0, this.runs.size - 5000)) this.runs.delete(key);
    }
  }
}

/**
 * `rows` with each term as a small integer (interned in a table of its own, in memory once seen),
 * and a batch's term rows inserted at its end in key order, so that each leaf page of the term
 * table is written once per batch instead of once per row.
 */
class SortedTermRows extends Prototype {
  private readonly insert: Database.Statement;
  private readonly intern: Database.Statement;
  private readonly ids = new Map<string, number>();
  /** The batch's rows, as `scope, term id, position` triples. */
  private rows: number[] = [];
  private batchEnd: number | null = null;
  constructor(rm: ReadModels) {
    super(
      'proto-sorted',
      rm,
      `CREATE TABLE IF NOT EXISTS rm_proto_sorted (scope INTEGER NOT NULL, term INTEGER NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (scope, term, position)) WITHOUT ROWID`,
    );
    this.db.statement('CREATE TABLE IF NOT EXISTS rm_proto_term_ids (term TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID').run();
    this.insert = this.db.statement('INSERT OR REPLACE INTO rm_proto_sorted VALUES (?, ?, ?)');
    this.intern = this.db.statement('INSERT OR IGNORE INTO rm_proto_term_ids VALUES (?, ?)');
  }
  async prepare(batch: RecordedEvent[]): Promise<void> {
    this.rows = [];
    this.batchEnd = batch.filter((event) => isDomainEvent(event)).at(-1)?.position ?? null;
  }
  protected terms(scope: number, event: RecordedEvent, terms: string[]): void {
    for (const term of terms) {
      let id = this.ids.get(term);
      if (id === undefined) {
        this.ids.set(term, (id = this.ids.size + 1));
        this.intern.run(term, id);
      }
      this.rows.push(scope, id, event.position);
    }
    if (this.batchEnd === null || event.position >= this.batchEnd) {
      const order = Array.from({ length: this.rows.length / 3 }, (_, i) => i * 3);
      const r = this.rows;
      order.sort((a, b) => r[a]! - r[b]! || r[a + 1]! - r[b + 1]! || r[a + 2]! - r[b + 2]!);
      for (const i of order) this.insert.run(r[i], r[i + 1], r[i + 2]);
      this.rows = [];
    }
  }
}

/**
 * The terms in SQLite's full-text index: a contentless FTS5 table without positions
 * (`detail=none`: a term's doclist holds the rowids alone), one row per event, its rowid the
 * event's position, its text the event's terms as tokens `s<scope>t<term id>` (a term interned as
 * in `sorted`). FTS5 gathers a transaction's doclists in memory and writes them as a segment at its
 * commit: the engine's own postings.
 */
class FullTextTerms extends Prototype {
  private readonly insert: Database.Statement;
  private readonly intern: Database.Statement;
  private readonly ids = new Map<string, string>();
  constructor(rm: ReadModels) {
    super(
      'proto-fts5',
      rm,
      "CREATE VIRTUAL TABLE IF NOT EXISTS rm_proto_fts USING fts5(terms, content='', detail=none, contentless_delete=1)",
    );
    this.db.statement('CREATE TABLE IF NOT EXISTS rm_proto_fts_terms (term TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID').run();
    this.insert = this.db.statement('INSERT INTO rm_proto_fts (rowid, terms) VALUES (?, ?)');
    this.intern = this.db.statement('INSERT OR IGNORE INTO rm_proto_fts_terms VALUES (?, ?)');
  }
  protected terms(scope: number, event: RecordedEvent, terms: string[]): void {
    let text = '';
    for (const term of terms) {
      const key = `${scope}|${term}`;
      let token = this.ids.get(key);
      if (token === undefined) {
        const id = this.ids.size + 1;
        this.ids.set(key, (token = `s${scope}t${id.toString(36)}`));
        this.intern.run(key, id);
      }
      text += text ? ` ${token}` : token;
    }
    this.insert.run(event.position, text);
  }
}

const prototype = (name: string, make: (rm: ReadModels) => Projection): Feature => ({ name, projections: (rm) => [make(rm)] });

const VARIANTS: Array<{ key: string; features: () => Feature[] }> = [
  { key: 'core', features: () => [] },
  { key: 'postings', features: () => embeddedFeatures().filter((f) => f.name === 'audit-log') },
  { key: 'rows', features: () => [prototype('proto-rows', (rm) => new TermRows(rm))] },
  { key: 'runs', features: () => [prototype('proto-runs', (rm) => new TermRuns(rm))] },
  { key: 'sorted', features: () => [prototype('proto-sorted', (rm) => new SortedTermRows(rm))] },
  { key: 'fts5', features: () => [prototype('proto-fts5', (rm) => new FullTextTerms(rm))] },
];

async function main(): Promise<void> {
  const log = await replayWorld('REBUILD_WORLD').open();
  const rounds = Number(process.env.AUDIT_ROUNDS ?? 3);
  const picked = process.env.AUDIT_VARIANTS?.split(',');
  const cpu = new Map<string, number[]>();
  try {
    console.log(`${log.head.toLocaleString('en-US')} events, ${rounds} rounds`);
    for (let round = 1; round <= rounds; round++) {
      for (const variant of VARIANTS.filter((v) => !picked || picked.includes(v.key))) {
        const dir = mkdtempSync(join(tmpdir(), 'rebac-audit-proto-'));
        const file = join(dir, 'read-models.sqlite');
        const { cpuUs, wallS } = await replayLog(log, file, variant.features());
        const perEvent = cpuUs / log.head;
        cpu.set(variant.key, [...(cpu.get(variant.key) ?? []), perEvent]);
        console.log(
          `round ${round} ${variant.key.padEnd(9)} ${perEvent.toFixed(1).padStart(6)} µs CPU/event  ${wallS.toFixed(1)} s  ${(statSync(file).size / 1e6).toFixed(0)} MB`,
        );
        if (round === rounds && ['rows', 'runs', 'fts5'].includes(variant.key) && process.env.AUDIT_PAGES !== 'false')
          await pageLatency(file, variant.key);
        rmSync(dir, { recursive: true, force: true });
      }
    }
    // What each variant adds to the core projections, round by round (the rounds alternate the variants).
    const core = cpu.get('core');
    for (const [key, values] of cpu) {
      const added = core ? values.map((v, i) => v - core[i]!).sort((a, b) => a - b) : [];
      const range = added.length > 0 ? ` (over core, by round: ${added[0]!.toFixed(1)}–${added.at(-1)!.toFixed(1)})` : '';
      console.log(`${key.padEnd(9)} ${values.map((v) => v.toFixed(1)).join(' / ')} µs CPU/event${range}`);
    }
  } finally {
    await log.close();
  }
}

/** The terms the `rows` variant's page queries used, for the FTS5 variant's (run after it) to ask the same. */
let chosen: { common: string; rareType: string; selective: string } | null = null;

/** The audit page's query shapes on a prototype's tables: the latest 100 events, filtered by no term, one, or two. */
async function pageLatency(file: string, key: string): Promise<void> {
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(file, { readonly: true });
  try {
    if (key === 'fts5') return ftsPageLatency(db);
    const termTable = key === 'rows' ? 'rm_proto_terms' : 'rm_proto_runs';
    // The environment the log's events are in: the scope with the most entries.
    const { scope } = db.prepare('SELECT scope FROM rm_proto_entries GROUP BY scope ORDER BY COUNT(*) DESC LIMIT 1').get() as {
      scope: number;
    };
    const counts = db
      .prepare(`SELECT term, COUNT(*) AS n FROM ${termTable} WHERE scope = ${scope} GROUP BY term ORDER BY n DESC`)
      .all() as Array<{ term: string; n: number }>;
    const common = counts[0]!.term;
    const typeTerms = counts.filter((c) => c.term.startsWith('ty='));
    const rareType = typeTerms.at(-1)!.term;
    const selective = counts.find((c) => c.n <= 200 && !c.term.startsWith('rq=') && !c.term.startsWith('co='))?.term ?? counts.at(-1)!.term;
    chosen = { common, rareType, selective };
    const shapes: Array<[string, () => unknown]> = [];
    const latest = db.prepare('SELECT position, version FROM rm_proto_entries WHERE scope = ? ORDER BY position DESC LIMIT 100');
    shapes.push(['latest 100, no filter', () => latest.all(scope)]);
    // The audit-log row's shapes where the log has them (REBUILD_WORLD=bulk): each query for another instance.
    const instances = (prefix: string) => counts.filter((c) => c.term.startsWith(prefix)).map((c) => c.term);
    const documents = instances('ri=document:');
    const folders = instances('ri=folder:');
    let turn = 0;
    const next = (terms: string[]) => terms[(turn++ * 7919) % terms.length]!;
    if (key === 'rows') {
      const one = db.prepare(`SELECT position FROM rm_proto_terms WHERE scope = ${scope} AND term = ? ORDER BY position DESC LIMIT 100`);
      const two = db.prepare(`SELECT a.position FROM rm_proto_terms a JOIN rm_proto_terms b
        ON b.scope = ${scope} AND b.term = ? AND b.position = a.position WHERE a.scope = ${scope} AND a.term = ? ORDER BY a.position DESC LIMIT 100`);
      if (documents.length > 0) shapes.push(['resource_instance=<document>', () => one.all(next(documents))]);
      if (folders.length > 0)
        shapes.push([
          'resource_instance=<folder> ∧ type=RelationshipTupleCreated',
          () => two.all('ty=RelationshipTupleCreated', next(folders)),
        ]);
      shapes.push([`one term, common (${common})`, () => one.all(common)]);
      shapes.push([`one term, selective (${selective})`, () => one.all(selective)]);
      shapes.push([`two terms (${common} ∧ ${rareType}), driven by the rarer`, () => two.all(common, rareType)]);
      shapes.push([`two terms (${common} ∧ ${rareType}), driven by the commoner`, () => two.all(rareType, common)]);
    } else {
      const one = db.prepare(`SELECT start, end FROM rm_proto_runs WHERE scope = ${scope} AND term = ? ORDER BY start DESC LIMIT 100`);
      shapes.push([`one term's latest 100 runs, common (${common})`, () => one.all(common)]);
      shapes.push([`one term's latest 100 runs, selective (${selective})`, () => one.all(selective)]);
    }
    console.log(`  ${key}: ${counts.length} terms; page latency over 300 runs each (p50 / p99 ms):`);
    for (const [label, run] of shapes) {
      for (let i = 0; i < 20; i++) run();
      const times: number[] = [];
      for (let i = 0; i < 300; i++) {
        const t = performance.now();
        run();
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      console.log(`    ${label.padEnd(70)} ${times[150]!.toFixed(3)} / ${times[296]!.toFixed(3)}`);
    }
  } finally {
    db.close();
  }
}

/** The same shapes on the FTS5 prototype: a term's latest 100 events, and two terms' (FTS5 intersects the doclists itself). */
function ftsPageLatency(db: Database.Database): void {
  const ids = db.prepare('SELECT term, id FROM rm_proto_fts_terms').all() as Array<{ term: string; id: number }>;
  const token = new Map(
    ids.map(({ term, id }) => [term.slice(term.indexOf('|') + 1), `s${term.slice(0, term.indexOf('|'))}t${id.toString(36)}`]),
  );
  // The environment's scope: the one its type terms are most in (terms are per scope; the last one interned wins here).
  const byType = ids.filter(({ term }) => term.includes('|ty=RelationshipTupleCreated'));
  const scope = byType.at(-1)!.term.slice(0, byType.at(-1)!.term.indexOf('|'));
  const scoped = (term: string) => ids.find((i) => i.term === `${scope}|${term}`);
  const tok = (term: string) => `s${scope}t${scoped(term)!.id.toString(36)}`;
  const documents = ids.filter((i) => i.term.startsWith(`${scope}|ri=document:`)).map((i) => `s${scope}t${i.id.toString(36)}`);
  const folders = ids.filter((i) => i.term.startsWith(`${scope}|ri=folder:`)).map((i) => `s${scope}t${i.id.toString(36)}`);
  void token;
  const page = db.prepare('SELECT rowid FROM rm_proto_fts WHERE rm_proto_fts MATCH ? ORDER BY rowid DESC LIMIT 100');
  let turn = 0;
  const next = (terms: string[]) => terms[(turn++ * 7919) % terms.length]!;
  const { common, rareType, selective } = chosen ?? { common: 'at=system', rareType: 'ty=RelationCreated', selective: 'at=system' };
  const shapes: Array<[string, () => unknown]> = [
    [`one term, common (${common})`, () => page.all(tok(common))],
    [`one term, selective (${selective})`, () => page.all(tok(selective))],
    [`two terms (${common} ∧ ${rareType})`, () => page.all(`${tok(common)} AND ${tok(rareType)}`)],
  ];
  if (documents.length > 0) shapes.push(['resource_instance=<document>', () => page.all(next(documents))]);
  if (folders.length > 0)
    shapes.push([
      'resource_instance=<folder> ∧ type=RelationshipTupleCreated',
      () => page.all(`${next(folders)} AND ${tok('ty=RelationshipTupleCreated')}`),
    ]);
  // The latest 100 read forwards in windows from the end, each twice as wide as the last (FTS5 reads a
  // doclist backwards by loading it whole, once per segment).
  const windowed = db.prepare('SELECT rowid FROM rm_proto_fts WHERE rm_proto_fts MATCH ? AND rowid > ? AND rowid <= ? ORDER BY rowid');
  const head = (db.prepare('SELECT MAX(position) AS p FROM rm_proto_entries').get() as { p: number }).p;
  const latest = (match: string) => {
    let found: unknown[] = [];
    for (let width = 512; found.length < 100; width *= 2) {
      found = windowed.all(match, Math.max(0, head - width), head);
      if (head - width <= 0) break;
    }
    return found.slice(-100);
  };
  shapes.push([`two terms, windowed forwards (${common} ∧ ${rareType})`, () => latest(`${tok(common)} AND ${tok(rareType)}`)]);
  shapes.push([`one term, selective, windowed forwards (${selective})`, () => latest(tok(selective))]);
  time('fts5', ids.length, shapes);
  const writable = new (db.constructor as new (file: string) => Database.Database)(db.name);
  const started = performance.now();
  writable.exec("INSERT INTO rm_proto_fts (rm_proto_fts) VALUES ('optimize')");
  writable.close();
  console.log(`  fts5 optimize (one segment): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  time('fts5 after optimize', ids.length, shapes);
}

function time(label: string, terms: number, shapes: Array<[string, () => unknown]>): void {
  console.log(`  ${label}: ${terms} scoped terms; page latency over 300 runs each (p50 / p99 ms):`);
  for (const [label, run] of shapes) {
    for (let i = 0; i < 20; i++) run();
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      run();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`    ${label.padEnd(70)} ${times[150]!.toFixed(3)} / ${times[296]!.toFixed(3)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
