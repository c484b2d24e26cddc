import { idTimeBound, type DecisionEntry, type DecisionFilter, type DecisionLogStore } from '../decision-log/port';

export interface DecisionLogHarness {
  /** A fresh, empty store. */
  create(): Promise<DecisionLogStore>;
  dispose?(store: DecisionLogStore): Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
let counter = 0;

/** An entry at `T0 + minutes`, its id a UUIDv7 of that time (as the port asks); ids of one time sort as they are made. */
function entry(minutes: number, parts: Partial<DecisionEntry> = {}): DecisionEntry {
  counter++;
  const timestamp = T0 + minutes * 60_000;
  return {
    id: `${idTimeBound(timestamp)}-7000-8000-${String(counter).padStart(12, '0')}`,
    timestamp,
    organizationId: 'org',
    projectId: 'proj',
    environmentId: 'env-1',
    apiKeyId: 'key-1',
    endpoint: '/allowed',
    queryType: 'check',
    user: 'alice',
    action: 'read',
    resourceType: 'document',
    resourceKey: 'readme',
    tenant: 'acme',
    decision: true,
    position: 10 + minutes,
    input: { user: { key: 'alice', attributes: { 'dotted.key': 1, $dollar: [null, { a: 'b' }] } }, action: 'read' },
    result: { allow: true },
    ...parts,
  };
}

/** The behaviour every DecisionLogStore adapter must have. */
export function describeDecisionLogContract(name: string, harness: DecisionLogHarness): void {
  describe(`DecisionLogStore contract: ${name}`, () => {
    let store: DecisionLogStore;
    beforeEach(async () => {
      store = await harness.create();
    });
    afterEach(async () => {
      await harness.dispose?.(store);
    });

    const all = { page: 1, perPage: 100, order: 'newest' as const };
    const found = async (filter: Omit<DecisionFilter, 'environmentId'>, environmentId = 'env-1') =>
      (await store.query({ environmentId, ...filter }, all)).entries.map((e) => e.id);

    it('appends batches and reads entries back exactly, newest first, by environment', async () => {
      // Most checks: their input and result are what their fields say (null).
      const a = entry(1, { input: null, result: null });
      const b = entry(2, { decision: null, queryType: 'get_user_permissions', action: null, result: { result: { permissions: {} } } });
      const other = entry(3, { environmentId: 'env-2' });
      await store.append([a, b]);
      await store.append([other]);
      await store.append([]);
      expect(await store.query({ environmentId: 'env-1' }, all)).toEqual({ entries: [b, a], total: 2 });
      expect((await store.query({ environmentId: 'env-1' }, { ...all, order: 'oldest' })).entries).toEqual([a, b]);
      expect(await store.get('env-1', a.id)).toEqual(a);
      expect(await store.get('env-2', a.id)).toBeNull();
      expect(await store.get('env-1', 'missing')).toBeNull();
    });

    it('keeps a batch appended twice once (a retried append)', async () => {
      const batch = [entry(1), entry(2)];
      await store.append(batch);
      await store.append(batch);
      expect((await store.query({ environmentId: 'env-1' }, all)).total).toBe(2);
    });

    it('filters by key, users, decision, resources (types or instances), tenant, action, query type and time, all at once', async () => {
      const a = entry(1);
      const b = entry(2, { user: 'bob', decision: false, apiKeyId: 'key-2' });
      const c = entry(3, { resourceKey: null, tenant: null, action: 'write' });
      const d = entry(4, { resourceType: 'folder', resourceKey: 'top', user: 'carol' });
      const e = entry(5, { queryType: 'get_user_permissions', decision: null, action: null, resourceType: null, resourceKey: null });
      await store.append([a, b, c, d, e]);
      expect(await found({ apiKeyIds: ['key-2'] })).toEqual([b.id]);
      expect(await found({ users: ['bob', 'carol'] })).toEqual([d.id, b.id]);
      expect(await found({ users: [] })).toEqual([]);
      expect(await found({ decision: false })).toEqual([b.id]);
      expect(await found({ decision: true })).toEqual([d.id, c.id, a.id]);
      expect(await found({ resources: ['document'] })).toEqual([c.id, b.id, a.id]);
      expect(await found({ resources: ['document:readme', 'folder'] })).toEqual([d.id, b.id, a.id]);
      expect(await found({ tenant: 'acme' })).toEqual([e.id, d.id, b.id, a.id]);
      expect(await found({ action: 'write' })).toEqual([c.id]);
      expect(await found({ queryType: 'get_user_permissions' })).toEqual([e.id]);
      expect(await found({ queryType: 'get_authorized_users' })).toEqual([]);
      expect(await found({ from: T0 + 2 * 60_000, to: T0 + 4 * 60_000 })).toEqual([d.id, c.id, b.id]);
      expect(await found({ users: ['alice'], decision: true, resources: ['document'], action: 'read', from: T0 })).toEqual([a.id]);
    });

    it('pages with a total over every page', async () => {
      const entries = Array.from({ length: 7 }, (_, i) => entry(i));
      await store.append(entries);
      const page = (n: number) => store.query({ environmentId: 'env-1' }, { page: n, perPage: 3, order: 'newest' });
      expect((await page(1)).entries.map((e) => e.id)).toEqual([entries[6]!.id, entries[5]!.id, entries[4]!.id]);
      expect((await page(3)).entries.map((e) => e.id)).toEqual([entries[0]!.id]);
      expect(await page(4)).toEqual({ entries: [], total: 7 });
      // Entries of one millisecond keep one order too (by id).
      const same = [entry(100), entry(100), entry(100)];
      await store.append(same);
      expect((await store.query({ environmentId: 'env-1' }, { page: 1, perPage: 3, order: 'newest' })).entries).toEqual(
        [...same].reverse(),
      );
    });

    it('deletes entries older than a time, and beyond the newest N, across environments', async () => {
      const entries = [entry(1), entry(2, { environmentId: 'env-2' }), entry(3), entry(4), entry(5, { environmentId: 'env-2' })];
      // Appended as a process appends them: in time order, batch after batch.
      await store.append([entries[0]!]);
      await store.append([entries[1]!]);
      await store.append([entries[2]!, entries[3]!]);
      await store.append([entries[4]!]);
      expect(await store.deleteOlderThan(T0 + 2 * 60_000)).toBe(1);
      expect(await store.keepNewest(10)).toBe(0);
      expect(await store.keepNewest(2)).toBe(2);
      expect(await found({})).toEqual([entries[3]!.id]);
      expect(await found({}, 'env-2')).toEqual([entries[4]!.id]);
      expect(await store.deleteOlderThan(T0)).toBe(0);
      expect(await store.get('env-1', entries[2]!.id)).toBeNull();
      expect(await store.get('env-1', entries[3]!.id)).toEqual(entries[3]);
    });

    it('deletes inside a batch: a time bound or a count that falls between its entries', async () => {
      const batch = Array.from({ length: 6 }, (_, i) => entry(10 + i, { decision: i % 2 === 0 }));
      await store.append(batch);
      expect(await store.deleteOlderThan(T0 + 12 * 60_000)).toBe(2);
      expect(await found({})).toEqual(
        batch
          .slice(2)
          .map((e) => e.id)
          .reverse(),
      );
      expect(await store.keepNewest(3)).toBe(1);
      expect(await found({})).toEqual(
        batch
          .slice(3)
          .map((e) => e.id)
          .reverse(),
      );
      // The counts of what is left are right: a page of denied ones, and its total.
      expect(await store.query({ environmentId: 'env-1', decision: false }, all)).toEqual({ entries: [batch[5], batch[3]], total: 2 });
    });

    it('counts and pages across many batches, each entry once', async () => {
      const batches = Array.from({ length: 5 }, (_, b) =>
        Array.from({ length: 4 }, (_, i) => entry(100 + b * 4 + i, { decision: i !== 1 })),
      );
      for (const batch of batches) await store.append(batch);
      const newest = batches.flat().reverse();
      const seen: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const got = await store.query({ environmentId: 'env-1' }, { page, perPage: 6, order: 'newest' });
        expect(got.total).toBe(20);
        seen.push(...got.entries.map((e) => e.id));
      }
      expect(seen).toEqual(newest.map((e) => e.id));
      const denied = await store.query({ environmentId: 'env-1', decision: false }, { page: 2, perPage: 2, order: 'newest' });
      expect(denied).toEqual({ entries: newest.filter((e) => e.decision === false).slice(2, 4), total: 5 });
      // A time range that cuts batches.
      const ranged = await store.query({ environmentId: 'env-1', from: T0 + 102 * 60_000, to: T0 + 109 * 60_000 }, all);
      expect(ranged.entries.map((e) => e.id)).toEqual(
        newest.filter((e) => e.timestamp >= T0 + 102 * 60_000 && e.timestamp <= T0 + 109 * 60_000).map((e) => e.id),
      );
      expect(ranged.total).toBe(8);
    });
  });
}
