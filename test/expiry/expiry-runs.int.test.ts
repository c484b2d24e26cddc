import Database from 'better-sqlite3';
import { join } from 'node:path';
import pino from 'pino';
import { buildProjections } from '../../app/feature';
import { embeddedFeatures } from '../../app/features';
import { ProjectionRunner } from '../../projection-service/runner';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import type { EnvCommand } from '../../shared/domain/env/commands';
import type { RecordedEvent } from '../../shared/events';
import { AsOfDocumentStore, HistoryCollections } from '../../shared/read-models/history/history';
import type { Projection } from '../../shared/read-models/projection';
import { ReadModels } from '../../shared/read-models/read-models';
import type { ExpiryRun } from '../../shared/read-models/runs';
import { cmd, ENV, GrantsHarness } from '../grants/support/harness';
import { Random } from '../grants/support/random';
import { createWorldSchema, randomCommand } from '../grants/support/random-world';
import { at, T0 } from './support/instants';

/**
 * Runs of expiries applied at once (shared/read-models/runs.ts) against the same log applied one
 * event at a time (`expiryRuns: false`): every table of the read models (facts, derived grants,
 * history versions and clock, audit index, checkpoints) must be identical, row for row, so every
 * read, check and `as_of` answer is too. Both sides run every shipped projection.
 */

/**
 * Counts how the runner handed it the expiries: runs taken at once, and assignments' expiries one at
 * a time. Holds the runner at the first event past `pauseAfter` until `resume` is called.
 */
function probe(pauseAfter: number) {
  const seen = { runs: 0, inRuns: 0, single: 0 };
  let resume = () => {};
  const gate = new Promise<void>((resolve) => (resume = resolve));
  const hold = async (position: number) => {
    if (position > pauseAfter) await gate;
  };
  const projection: Projection = {
    name: 'probe',
    version: 1,
    handles: new Set(['RoleAssignmentExpired', 'RelationshipTupleExpired']),
    async apply(event) {
      await hold(event.position);
      if (event.type === 'RoleAssignmentExpired') seen.single += 1;
    },
    async applyRun(run: ExpiryRun) {
      await hold(run[0]!.position);
      seen.runs += 1;
      seen.inRuns += run.length;
    },
  };
  return { seen, projection, resume };
}

/**
 * Projects the harness's log into a fresh SQLite file with every shipped projection (`batch` events
 * a batch); what the probe saw, and the read models as they were at `pauseAfter` when given.
 */
async function project(h: GrantsHarness, name: string, expiryRuns: boolean, { batch = 40, pauseAfter = Infinity } = {}) {
  const path = join(h.dir, `${name}.sqlite`);
  const store = new SqliteDocumentStore(path);
  const { seen, projection, resume } = probe(pauseAfter);
  const projections = [...buildProjections(ReadModels.writer(store), embeddedFeatures()), projection];
  const runner = new ProjectionRunner(h.events, store, projections, pino({ level: 'silent' }), {
    expiryRuns,
    batchSize: batch,
    catchUpBatchSize: batch,
  });
  await runner.start();
  let paused: Record<string, string[]> | null = null;
  if (pauseAfter !== Infinity) {
    if (!(await runner.waitForPosition(pauseAfter, 60_000))) throw new Error(`${name} did not reach ${pauseAfter}`);
    // The batch after it waits for the probe, uncommitted: another connection reads the read models as of pauseAfter.
    paused = dump(path);
  }
  resume();
  const head = await h.events.headPosition();
  if (!(await runner.waitForPosition(head, 60_000))) throw new Error(`${name} did not reach ${head}`);
  await runner.stop();
  return { path, store, seen, paused };
}

/** Every row of every table of a SQLite file, as text, sorted within each table. */
function dump(path: string): Record<string, string[]> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>;
    const out: Record<string, string[]> = {};
    for (const { name } of tables)
      out[name] = db
        .prepare(`SELECT * FROM "${name}"`)
        .all()
        .map((row) => JSON.stringify(row))
        .sort();
    return out;
  } finally {
    db.close();
  }
}

/** The assignments as of each position in `[from, to]`, and the position each instant the log's events were appended at reads as of. */
async function asOfReads(store: SqliteDocumentStore, events: RecordedEvent[], from: number, to: number) {
  const out: Record<string, unknown> = {};
  for (let p = from; p <= to; p++) {
    const rm = new ReadModels(new AsOfDocumentStore(store, p));
    out[`position ${p}`] = await rm.assignments.find({ environment_id: ENV }, { sortBy: 'id' });
  }
  const history = new HistoryCollections(store);
  for (const time of new Set(events.map((e) => e.metadata.timestamp))) out[`time ${time}`] = await history.positionAtTime(ENV, time);
  return out;
}

/** Both ways of projecting the log (see `project` for the options): the dumps must be equal; what the probe saw. */
async function sameBothWays(h: GrantsHarness, options: { batch?: number; pauseAfter?: number } = {}) {
  const atOnce = await project(h, 'runs', true, options);
  const oneByOne = await project(h, 'one-by-one', false, options);
  expect(atOnce.paused).toEqual(oneByOne.paused);
  try {
    const events = await h.events.readAll(0, 1_000_000);
    const expiries = events.filter((e) => e.type === 'RoleAssignmentExpired').map((e) => e.position);
    expect(expiries.length).toBeGreaterThan(0);
    const from = Math.min(...expiries) - 1;
    const to = Math.max(...expiries);
    expect(await asOfReads(atOnce.store, events, from, to)).toEqual(await asOfReads(oneByOne.store, events, from, to));
  } finally {
    await atOnce.store.close();
    await oneByOne.store.close();
  }
  expect(dump(atOnce.path)).toEqual(dump(oneByOne.path));
  expect(oneByOne.seen.runs).toBe(0);
  return atOnce.seen;
}

type Assign = Extract<EnvCommand, { type: 'AssignRole' }>;
type Tuple = Extract<EnvCommand, { type: 'CreateTuple' }>;
const assignUntil = (user: string, role: string, instance: string, end: string | null): EnvCommand => ({
  ...(cmd.assign(user, role, instance) as Assign),
  expiresAt: end,
});
const tupleUntil = (subject: string, relation: string, object: string, end: string | null): EnvCommand => ({
  ...(cmd.tuple(subject, relation, object) as Tuple),
  expiresAt: end,
});

describe('a run of expiries applied at once', () => {
  it('leaves every read model as the expiries one at a time do, taken at once or not', async () => {
    const h = await new GrantsHarness().start();
    try {
      const end = at(T0 + 60_000);
      await h.must(cmd.resource('folder', ['read', 'write']));
      await h.must(cmd.resource('document', ['read', 'write']));
      for (const role of ['editor', 'viewer']) {
        await h.must(cmd.role('folder', role, ['read']));
        await h.must(cmd.role('document', role, ['read']));
      }
      await h.must(cmd.relation('document', 'parent', 'folder'));
      await h.must(cmd.relation('folder', 'parent', 'folder'));
      await h.must(cmd.tenant('t1'));
      await h.must(cmd.derive('document', 'editor', 'folder', 'editor', 'parent'));
      await h.must(cmd.derive('document', 'viewer', 'folder', 'viewer', 'parent'));
      await h.must(cmd.derive('folder', 'editor', 'folder', 'editor', 'parent'));
      for (let i = 0; i < 12; i++) {
        await h.must(cmd.instance('folder', `f${i}`, 't1'));
        await h.must(cmd.instance('document', `d${i}`, 't1'));
        await h.must(cmd.tuple(`folder:f${i}`, 'parent', `document:d${i}`));
      }
      // f0 is the parent of f1, f1 of f2: a chain of derived folder roles.
      await h.must(cmd.tuple('folder:f0', 'parent', 'folder:f1'));
      await h.must(cmd.tuple('folder:f1', 'parent', 'folder:f2'));
      // The mass expiry's shape: each editor of a folder, so of its document, all ending together.
      for (let i = 3; i < 10; i++) await h.must(assignUntil(`u${i}`, 'editor', `folder:f${i}`, end));
      // A chain all of whose supports end in the run: u0 on f0 (and so f1, f2), also directly on f2.
      await h.must(assignUntil('u0', 'editor', 'folder:f0', end));
      await h.must(assignUntil('u0', 'editor', 'folder:f2', end));
      // A user keeping a role: u1's editor role on f1 ends, the one on f0 (its parent) does not.
      await h.must(assignUntil('u1', 'editor', 'folder:f1', end));
      await h.must(assignUntil('u1', 'editor', 'folder:f0', null));
      // Ended earlier, expired in the same look: one run, events of other instants.
      await h.must(assignUntil('u2', 'viewer', 'folder:f10', at(T0 + 59_000)));
      await h.must(assignUntil('u2', 'editor', 'folder:f11', at(T0 + 59_999)));
      const expired = await h.must({ type: 'ExpireDue', now: end });
      expect(expired.length).toBe(12);
      const seen = await sameBothWays(h);
      expect(seen.runs).toBeGreaterThan(0);
      expect(seen.inRuns).toBeGreaterThan(seen.single);
    } finally {
      await h.close();
    }
  });

  it('is refused where a support outside the run remains, and its expiries go one at a time', async () => {
    const h = await new GrantsHarness().start();
    try {
      const end = at(T0 + 60_000);
      await h.must(cmd.resource('folder', ['read']));
      await h.must(cmd.resource('document', ['read']));
      await h.must(cmd.role('folder', 'editor', ['read']));
      await h.must(cmd.role('document', 'editor', ['read']));
      await h.must(cmd.relation('folder', 'parent', 'folder'));
      await h.must(cmd.relation('document', 'parent', 'folder'));
      await h.must(cmd.tenant('t1'));
      await h.must(cmd.derive('folder', 'editor', 'folder', 'editor', 'parent'));
      await h.must(cmd.derive('document', 'editor', 'folder', 'editor', 'parent'));
      for (const key of ['f0', 'f1', 'f2']) await h.must(cmd.instance('folder', key, 't1'));
      await h.must(cmd.instance('document', 'd2', 't1'));
      await h.must(cmd.tuple('folder:f0', 'parent', 'folder:f2'));
      await h.must(cmd.tuple('folder:f2', 'parent', 'document:d2'));
      await h.must(assignUntil('u0', 'editor', 'folder:f0', end));
      await h.must(assignUntil('u1', 'editor', 'folder:f0', end));
      // u0's role on f2 also comes from f1, through a tuple that ends at the same instant, but expires after the run.
      await h.must(assignUntil('u0', 'editor', 'folder:f1', null));
      await h.must(tupleUntil('folder:f1', 'parent', 'folder:f2', end));
      const expired = await h.must({ type: 'ExpireDue', now: end });
      expect(expired.map((e) => e.type)).toEqual(['RoleAssignmentExpired', 'RoleAssignmentExpired', 'RelationshipTupleExpired']);
      // Compared also right after the two assignments' expiries, in a batch that ends there: the
      // tuple still carries u0's role on f2 (it expires next), which deleting the run's subtrees would lose.
      const run = (await h.events.headPosition()) - 1;
      expect(await sameBothWays(h, { batch: run, pauseAfter: run })).toEqual({ runs: 0, inRuns: 0, single: 2 });
    } finally {
      await h.close();
    }
  });

  it('leaves every read model as one at a time under a random sequence with ends at a few instants', async () => {
    let taken = 0;
    let refused = 0;
    // The last seed keeps `no_direct_roles_on_object` conditions among the commands (they refuse every run of their environment).
    for (const [seed, guarded] of [
      [3, false],
      [17, false],
      [2026, true],
    ] as const) {
      const h = await new GrantsHarness().start();
      try {
        await createWorldSchema(h);
        const r = new Random(seed);
        let now = T0;
        for (let step = 0; step < 400; step++) {
          const state = await h.state();
          let command = randomCommand(r, state);
          if (command.type === 'SetDerivationConditions' && !guarded) continue;
          // Ends at a few instants ahead, so that an expiry look finds several due together.
          if ((command.type === 'AssignRole' || command.type === 'CreateTuple') && r.chance(0.8)) {
            const expiresAt = r.chance(0.2) ? null : at(now + 10 * (1 + r.int(2)));
            command = command.type === 'AssignRole' ? { ...command, expiresAt } : { ...command, expiresAt };
          }
          await h.exec(command);
          if (r.chance(0.08)) now += 10 * (1 + r.int(3));
          if (r.chance(0.02)) await h.exec({ type: 'ExpireDue', now: at(now) });
        }
        await h.exec({ type: 'ExpireDue', now: at(now + 1_000) });
        const seen = await sameBothWays(h);
        taken += seen.runs;
        refused += seen.single;
      } finally {
        await h.close();
      }
    }
    // Not vacuous: runs were taken at once, and expiries went one at a time (refused runs, single ones).
    expect(taken).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  });
});
