import { join } from 'node:path';
import { coreProjections } from '../../app/feature';
import { tupleEdges } from '../../shared/read-models/grants/fact-finders';
import { readStoresOf } from '../../shared/read-stores/port';
import { EffectiveGrants } from '../../command-service/grant-queries/effective-grants';
import { grantsProjection } from '../../projection-service/grants/projection';
import { applyToProjections, type Projection } from '../../shared/read-models/projection';
import { ReadModels } from '../../shared/read-models/read-models';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import type { RecordedEvent } from '../../shared/events';
import { cmd, ENV, GrantsHarness } from './support/harness';
import { Random } from './support/random';
import { createWorldSchema, randomCommand } from './support/random-world';
import { grantKeys, recomputeGrants, unsoundReasons } from './support/reference';

/** Applies events straight to a fresh read-model store, with a delivery plan. */
async function replay(dir: string, name: string, events: RecordedEvent[], deliveries: (i: number) => number[]) {
  // The projections' view: what the runner gives them (inside a transaction, reads see its writes).
  const store = new SqliteDocumentStore(join(dir, `${name}.sqlite`)).writerView();
  const rm = new ReadModels(store);
  const projections: Projection[] = [...coreProjections(rm), grantsProjection(rm)];
  for (let i = 0; i < events.length; i++) {
    await store.transaction(async () => {
      for (const index of deliveries(i)) await applyToProjections(projections, events[index]!);
    });
  }
  const grants = await new EffectiveGrants(readStoresOf(store).grants, tupleEdges(rm.tuples)).find(
    { environment_id: ENV },
    { sortBy: 'id' },
  );
  await store.close();
  return grants;
}

describe('the grants projection under redelivery', () => {
  let h: GrantsHarness;
  let events: RecordedEvent[];
  beforeAll(async () => {
    h = await new GrantsHarness().start();
    await createWorldSchema(h);
    const r = new Random(5);
    for (let step = 0; step < 250; step++) await h.exec(randomCommand(r, await h.state()));
    await h.settle();
    events = await h.events.readAll(0, 1_000_000);
  });
  afterAll(() => h.close());

  it('ends with the same documents when every event is delivered twice', async () => {
    const once = await h.read.allGrants();
    expect(once.length).toBeGreaterThan(5);
    expect(await replay(h.dir, 'twice', events, (i) => [i, i])).toEqual(once);
  });

  it('ends with the same grants, all soundly explained, when batches are delivered again from an earlier point', async () => {
    const r = new Random(11);
    // Every 20 events, redeliver the last few (as after a crash between a batch and its checkpoint).
    const plan = (i: number) => {
      if (i % 20 !== 19) return [i];
      const from = i - r.int(19);
      return [i, ...Array.from({ length: i - from + 1 }, (_, k) => from + k)];
    };
    const grants = await replay(h.dir, 'suffixes', events, plan);
    const state = await h.state();
    expect(grantKeys(grants)).toEqual(recomputeGrants(state));
    expect(unsoundReasons(grants, state)).toEqual([]);
  });

  it('takes the grants derived through the tuples an older log left to go with a deleted instance', async () => {
    // The log deletes an instance's tuples before it, as events. An older one did not: the facts projection drops
    // them with the instance, and the grants derived through them, on other instances, must go too.
    const older = await new GrantsHarness().start();
    try {
      await older.must(cmd.resource('folder', ['read']));
      await older.must(cmd.resource('document', ['read']));
      await older.must(cmd.role('folder', 'editor', ['read']));
      await older.must(cmd.role('document', 'editor', ['read']));
      await older.must(cmd.relation('folder', 'parent', 'folder'));
      await older.must(cmd.relation('document', 'parent', 'folder'));
      await older.must(cmd.tenant('acme'));
      await older.must(cmd.derive('folder', 'editor', 'folder', 'editor', 'parent'));
      await older.must(cmd.derive('document', 'editor', 'folder', 'editor', 'parent'));
      for (const ref of ['folder:top', 'folder:f', 'document:d1', 'document:d2']) {
        const [type, key] = ref.split(':') as [string, string];
        await older.must(cmd.instance(type, key, 'acme'));
      }
      for (const [subject, object] of [
        ['folder:top', 'folder:f'],
        ['folder:f', 'document:d1'],
        ['folder:f', 'document:d2'],
      ])
        await older.must(cmd.tuple(subject!, 'parent', object!));
      await older.must(cmd.assign('alice', 'editor', 'folder:top'));
      const deletion = await older.must({ type: 'DeleteInstance', instance: 'folder:f' });
      expect(deletion.filter((e) => e.type === 'RelationshipTupleDeleted')).toHaveLength(3);
      await older.settle();
      const log = await older.events.readAll(0, 1_000_000);
      const grants = await replay(
        older.dir,
        'older-log',
        log.filter((e) => e.type !== 'RelationshipTupleDeleted'),
        (i) => [i],
      );
      expect(grants.map((g) => `${g.user} ${g.role} ${g.instance}`)).toEqual(['alice editor folder:top']);
      expect(grantKeys(grants)).toEqual(grantKeys(await older.read.allGrants()));
    } finally {
      await older.close();
    }
  });
});
