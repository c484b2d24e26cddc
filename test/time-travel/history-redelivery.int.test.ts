import { join } from 'node:path';
import { coreProjections } from '../../app/feature';
import { historyProjection } from '../../projection-service/history/projection';
import { HistoryCollections, type VersionedName } from '../../shared/read-models/history/history';
import { applyToProjections, type Projection } from '../../shared/read-models/projection';
import { ReadModels } from '../../shared/read-models/read-models';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import type { RecordedEvent } from '../../shared/events';
import { GrantsHarness } from '../grants/support/harness';
import { Random } from '../grants/support/random';
import { createWorldSchema, randomCommand } from '../grants/support/random-world';

const NAMES: VersionedName[] = [
  'resources',
  'resourceRoles',
  'roles',
  'relations',
  'tenants',
  'users',
  'instances',
  'assignments',
  'tuples',
];

/**
 * Applies events straight to a fresh read-model store (core projections +
 * history), with a delivery plan (batches of one event unless `batch` is
 * given: then batches of that many, each delivered once, as the runner does);
 * returns every history document.
 */
async function replay(
  dir: string,
  name: string,
  events: RecordedEvent[],
  deliveries: (i: number) => number[],
  { batch = 1 }: { batch?: number } = {},
) {
  // The projections' view: what the runner gives them (inside a transaction, reads see its writes).
  const store = new SqliteDocumentStore(join(dir, `${name}.sqlite`)).writerView();
  const rm = new ReadModels(store);
  const projections: Projection[] = [...coreProjections(rm), historyProjection(rm)];
  if (batch > 1) {
    for (let i = 0; i < events.length; i += batch) {
      const slice = events.slice(i, i + batch);
      await store.transaction(async () => {
        for (const projection of projections) await projection.prepare?.(slice);
        for (const event of slice) await applyToProjections(projections, event);
      });
    }
  }
  for (let i = 0; i < events.length && batch === 1; i++) {
    await store.transaction(async () => {
      for (const projection of projections) await projection.prepare?.([events[i]!]);
      for (const index of deliveries(i)) await applyToProjections(projections, events[index]!);
    });
  }
  const history = new HistoryCollections(store);
  const out: Record<string, unknown[]> = {};
  for (const n of NAMES) out[n] = await history[n].versions.find({}, { sortBy: 'id' });
  out.clock = await history.clock.find({}, { sortBy: 'id' });
  await store.close();
  return out;
}

/**
 * The history projection is idempotent under redelivery (engines without
 * transactions replay a batch after a crash, onto what is already written):
 * the versions and the clock come out the same.
 */
describe('the history projection under redelivery', () => {
  let h: GrantsHarness;
  let events: RecordedEvent[];
  let once: Record<string, unknown[]>;
  beforeAll(async () => {
    h = await new GrantsHarness().start();
    await createWorldSchema(h);
    const r = new Random(5);
    for (let step = 0; step < 250; step++) await h.exec(randomCommand(r, await h.state()));
    await h.settle();
    events = await h.events.readAll(0, 1_000_000);
    // The reference: each document read back from the store after the core projections wrote it.
    once = await replay(h.dir, 'once', events, (i) => [i]);
  });
  afterAll(() => h.close());

  it('keeps versions of every kind of document (the random world has no top-level roles)', () => {
    for (const n of NAMES.filter((name) => name !== 'roles')) expect({ n, some: once[n]!.length > 0 }).toEqual({ n, some: true });
    expect(once.tuples!.length).toBeGreaterThan(30);
  });

  it('writes the same versions when every event is delivered twice', async () => {
    expect(await replay(h.dir, 'twice', events, (i) => [i, i])).toEqual(once);
  });

  it('writes the same versions when events come in batches (a document changed several times in one is written at its end)', async () => {
    for (const size of [7, 100, events.length])
      expect({ size, history: await replay(h.dir, `batches-${size}`, events, (i) => [i], { batch: size }) }).toEqual({
        size,
        history: once,
      });
  });

  it('writes the same versions when batches are delivered again from an earlier point', async () => {
    const r = new Random(11);
    const plan = (i: number) => {
      if (i % 20 !== 19) return [i];
      const from = i - r.int(19);
      return [i, ...Array.from({ length: i - from + 1 }, (_, k) => from + k)];
    };
    expect(await replay(h.dir, 'suffixes', events, plan)).toEqual(once);
  });
});
