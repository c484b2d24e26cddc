import type { DocumentStore } from '../docstore/port';
import { grantId, idRange, instanceGrantIds, typeGrantIds, userGrantIds, type GrantDoc, type RulesDoc } from '../read-models/grants/model';
import { readStoresOf } from '../read-stores/port';
import type { GrantStore } from '../read-stores/grants/port';

export interface GrantStoreHarness {
  /** A fresh, empty document store, whose domain stores are under test. */
  create(): Promise<DocumentStore>;
  dispose?(store: DocumentStore): Promise<void>;
}

const ENV = 'env-1';
const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-02T00:00:00.000Z';

/** A direct grant (from an assignment). */
const direct = (user: string, instance: string, role: string, overrides: Partial<GrantDoc> = {}): GrantDoc => ({
  id: grantId(overrides.environment_id ?? ENV, user, instance, role),
  environment_id: ENV,
  user,
  instance,
  resource: instance.slice(0, instance.indexOf(':')),
  role,
  tenant: 'default',
  from_grant: null,
  reason: { kind: 'assignment', assignment_id: `a-${user}-${instance}-${role}` },
  expires_at: null,
  created_at: AT,
  updated_at: AT,
  ...overrides,
});

/** A grant derived from `parent` along a tuple from its instance to `instance`. */
const derived = (parent: GrantDoc, instance: string, role: string, overrides: Partial<GrantDoc> = {}): GrantDoc => ({
  id: grantId(ENV, parent.user, instance, role),
  environment_id: ENV,
  user: parent.user,
  instance,
  resource: instance.slice(0, instance.indexOf(':')),
  role,
  tenant: parent.tenant,
  from_grant: parent.id,
  reason: {
    kind: 'derivation',
    from_grant: parent.id,
    tuple: { id: `t-${parent.instance}-${instance}`, subject: parent.instance, relation: 'parent', object: instance },
    rule: { onResource: parent.resource, role: parent.role, relation: 'parent' },
  },
  expires_at: null,
  created_at: AT,
  updated_at: AT,
  ...overrides,
});

const ids = (grants: GrantDoc[]) => grants.map((g) => g.id);
const sortedIds = (grants: GrantDoc[]) => ids(grants).sort();

/**
 * The behaviour every GrantStore adapter must have (docs/read-stores.md), through the domain stores of
 * a document store of its engine: the store's own (committed state) and its writer view's (the
 * projection runner's batch transactions).
 */
export function describeGrantStoreContract(name: string, harness: GrantStoreHarness): void {
  describe(`GrantStore contract: ${name}`, () => {
    let store: DocumentStore;
    let writer: DocumentStore;
    /** The projection's store: writes through the writer view, in a transaction as the runner's batches are. */
    let projected: GrantStore;
    let grants: GrantStore;
    const inBatch = <R>(work: (grants: GrantStore) => Promise<R>): Promise<R> => writer.transaction(() => work(projected));

    beforeEach(async () => {
      store = await harness.create();
      writer = store.writerView();
      projected = readStoresOf(writer).grants;
      grants = readStoresOf(store).grants;
    });
    afterEach(async () => {
      await harness.dispose?.(store);
    });

    const folderOwner = direct('alice', 'folder:f1', 'owner');
    const docEditor = derived(folderOwner, 'document:d1', 'editor', { expires_at: LATER });

    it('keeps a grant as it was given, its support included (an assignment, or a derivation whose tuple and rule it names)', async () => {
      await inBatch((g) => g.insertMissing([folderOwner, docEditor]));
      expect(await grants.get(folderOwner.id)).toEqual(folderOwner);
      expect(await grants.get(docEditor.id)).toEqual(docEditor);
      expect(await grants.get(grantId(ENV, 'bob', 'folder:f1', 'owner'))).toBeNull();
      expect(sortedIds(await grants.byIds([docEditor.id, 'nothing', folderOwner.id]))).toEqual(sortedIds([folderOwner, docEditor]));
      expect(await grants.byIds([])).toEqual([]);
    });

    it('inserts only the grants not stored yet, and says which (of a repeated id, the first)', async () => {
      const renamed = { ...folderOwner, updated_at: LATER };
      expect(ids(await inBatch((g) => g.insertMissing([folderOwner])))).toEqual([folderOwner.id]);
      const second = await inBatch((g) => g.insertMissing([renamed, docEditor, { ...docEditor, updated_at: LATER }]));
      expect(second).toEqual([docEditor]);
      expect(await grants.get(folderOwner.id)).toEqual(folderOwner);
      expect(await grants.get(docEditor.id)).toEqual(docEditor);
      expect(await inBatch((g) => g.insertMissing([]))).toEqual([]);
    });

    it('replaces a grant put again (its support, its end), and deletes by id, counting what was stored', async () => {
      await inBatch((g) => g.insertMissing([folderOwner, docEditor]));
      const direct2 = direct('alice', 'document:d1', 'editor', { created_at: AT, updated_at: LATER });
      await inBatch((g) => g.put([direct2]));
      expect(await grants.get(direct2.id)).toEqual(direct2);
      expect(await inBatch((g) => g.delete([folderOwner.id, 'nothing', folderOwner.id]))).toBe(1);
      expect(await grants.get(folderOwner.id)).toBeNull();
      expect(await inBatch((g) => g.delete([]))).toBe(0);
      expect(await grants.count()).toBe(1);
    });

    describe('reads', () => {
      // alice: folders f1 (owner, viewer), f2 (viewer); documents d1, d2 (editor, derived from f1); Bob (byte order: before alice) on f1.
      const aliceF1Viewer = direct('alice', 'folder:f1', 'viewer', { tenant: 'other' });
      const aliceF2 = direct('alice', 'folder:f2', 'viewer');
      const aliceD2 = derived(folderOwner, 'document:d2', 'editor');
      const bobF1 = direct('Bob', 'folder:f1', 'owner');
      const carolF1 = direct('carol', 'folder:f1', 'viewer');
      const elsewhere = direct('alice', 'folder:f1', 'owner', { environment_id: 'env-2' });
      const all = [folderOwner, aliceF1Viewer, aliceF2, docEditor, aliceD2, bobF1, carolF1, elsewhere];
      beforeEach(async () => {
        await inBatch((g) => g.insertMissing(all));
      });

      it("gives one user's grants as ranges of ids, in instance order, narrowed and paged", async () => {
        const alice = idRange(userGrantIds(ENV, 'alice', null));
        expect(ids(await grants.userRange(alice))).toEqual(ids([docEditor, aliceD2, folderOwner, aliceF1Viewer, aliceF2]));
        expect(ids(await grants.userRange(idRange(userGrantIds(ENV, 'alice', 'document:d1'))))).toEqual(
          ids([aliceD2, folderOwner, aliceF1Viewer, aliceF2]),
        );
        expect(ids(await grants.userRange(idRange(typeGrantIds(ENV, 'alice', 'folder'))))).toEqual(
          ids([folderOwner, aliceF1Viewer, aliceF2]),
        );
        expect(ids(await grants.userRange(idRange(instanceGrantIds(ENV, 'alice', 'folder:f1'))))).toEqual(
          ids([folderOwner, aliceF1Viewer]),
        );
        expect(ids(await grants.userRange(alice, { roles: ['viewer'] }))).toEqual(ids([aliceF1Viewer, aliceF2]));
        expect(ids(await grants.userRange(alice, { tenants: ['other'] }))).toEqual(ids([aliceF1Viewer]));
        expect(ids(await grants.userRange(alice, { resources: ['document'] }))).toEqual(ids([docEditor, aliceD2]));
        expect(ids(await grants.userRange(alice, { roles: [] }))).toEqual([]);
        expect(ids(await grants.userRange(alice, {}, { limit: 2 }))).toEqual(ids([docEditor, aliceD2]));
        expect(ids(await grants.userRange(alice, {}, { limit: 2, skip: 2 }))).toEqual(ids([folderOwner, aliceF1Viewer]));
        expect(ids(await grants.userRange(alice, { roles: ['owner', 'viewer'] }, { limit: 1, skip: 1 }))).toEqual(ids([aliceF1Viewer]));
      });

      it('counts a range as narrowed, no further than asked', async () => {
        const alice = idRange(userGrantIds(ENV, 'alice', null));
        expect(await grants.countUserRange(alice)).toBe(5);
        expect(await grants.countUserRange(alice, { roles: ['editor'] })).toBe(2);
        expect(await grants.countUserRange(alice, {}, 3)).toBe(3);
        expect(await grants.countUserRange(idRange(typeGrantIds(ENV, 'alice', 'folder')), {}, 10)).toBe(3);
        expect(await grants.countUserRange(idRange(userGrantIds(ENV, 'dave', null)))).toBe(0);
      });

      it("gives an instance's holders in user order (byte order), then role, paged after a user, for some users, narrowed", async () => {
        expect(ids(await grants.holders(ENV, 'folder:f1'))).toEqual(ids([bobF1, folderOwner, aliceF1Viewer, carolF1]));
        expect(ids(await grants.holders(ENV, 'folder:f1', { limit: 3 }))).toEqual(ids([bobF1, folderOwner, aliceF1Viewer]));
        expect(ids(await grants.holders(ENV, 'folder:f1', { afterUser: 'alice' }))).toEqual(ids([carolF1]));
        expect(ids(await grants.holders(ENV, 'folder:f1', { users: ['carol', 'alice'] }))).toEqual(
          ids([folderOwner, aliceF1Viewer, carolF1]),
        );
        expect(ids(await grants.holders(ENV, 'folder:f1', { users: [] }))).toEqual([]);
        expect(ids(await grants.holders(ENV, 'folder:f1', { roles: ['owner'], afterUser: 'Bob' }))).toEqual(ids([folderOwner]));
        expect(ids(await grants.holders(ENV, 'folder:f1', { tenants: ['default'], limit: 2 }))).toEqual(ids([bobF1, folderOwner]));
        expect(ids(await grants.holders(ENV, 'folder:f9'))).toEqual([]);
        expect(ids(await grants.holders('env-2', 'folder:f1'))).toEqual(ids([elsewhere]));
      });

      it("gives a user's grants on given instances, narrowed, in id order", async () => {
        expect(ids(await grants.userOn(ENV, 'alice', ['folder:f1']))).toEqual(ids([folderOwner, aliceF1Viewer]));
        expect(ids(await grants.userOn(ENV, 'alice', ['folder:f1'], { roles: ['viewer', 'admin'] }))).toEqual(ids([aliceF1Viewer]));
        expect(ids(await grants.userOn(ENV, 'alice', ['folder:f2', 'document:d1', 'folder:f1', 'folder:f9']))).toEqual(
          ids([docEditor, folderOwner, aliceF1Viewer, aliceF2]),
        );
        expect(await grants.userOn(ENV, 'alice', [])).toEqual([]);
        expect(ids(await grants.userOn('env-2', 'alice', ['folder:f1']))).toEqual(ids([elsewhere]));
      });

      it("gives a user's roles on one instance and their ends (of some roles), in role order", async () => {
        const held = (r: GrantDoc) => ({ id: r.id, role: r.role, expires_at: r.expires_at ?? null });
        expect(await grants.rolesOn(ENV, 'alice', 'folder:f1')).toEqual([held(folderOwner), held(aliceF1Viewer)]);
        expect(await grants.rolesOn(ENV, 'alice', 'folder:f1', ['viewer', 'admin'])).toEqual([held(aliceF1Viewer)]);
        expect(await grants.rolesOn(ENV, 'alice', 'document:d1')).toEqual([{ id: docEditor.id, role: 'editor', expires_at: LATER }]);
        expect(await grants.rolesOn(ENV, 'alice', 'folder:f1', [])).toEqual([]);
        expect(await grants.rolesOn(ENV, 'dave', 'folder:f1')).toEqual([]);
      });

      it('gives the grants on any of several instances, at most a limit, and every grant of an environment in id order', async () => {
        expect(sortedIds(await grants.onInstances(ENV, ['folder:f1', 'document:d2'], 100))).toEqual(
          sortedIds([folderOwner, aliceF1Viewer, bobF1, carolF1, aliceD2]),
        );
        expect(await grants.onInstances(ENV, ['folder:f1', 'document:d2'], 3)).toHaveLength(3);
        expect(await grants.onInstances(ENV, [], 3)).toEqual([]);
        const env = await grants.ofEnvironment(ENV);
        expect(ids(env)).toEqual(sortedIds(all.filter((g) => g.environment_id === ENV)));
        expect(env.find((g) => g.id === docEditor.id)).toEqual(docEditor);
        expect(await grants.count()).toBe(all.length);
      });
    });

    it('keeps each environment’s rules as stored last', async () => {
      const rules: RulesDoc = {
        id: ENV,
        environment_id: ENV,
        rules: [{ resource: 'document', role: 'editor', rule: { onResource: 'folder', role: 'owner', relation: 'parent' } }],
        guarded: ['document#editor'],
        sinks_implied: true,
      };
      expect(await grants.rules(ENV)).toBeNull();
      await inBatch((g) => g.putRules(rules));
      expect(await grants.rules(ENV)).toEqual(rules);
      await inBatch((g) => g.putRules({ ...rules, rules: [], guarded: [] }));
      expect(await grants.rules(ENV)).toEqual({ ...rules, rules: [], guarded: [] });
      expect(await grants.rules('env-2')).toBeNull();
    });

    it('ends where it ended when a batch is applied again (replay after a crash)', async () => {
      const apply = (g: GrantStore) =>
        (async () => {
          await g.insertMissing([folderOwner, docEditor]);
          await g.put([{ ...docEditor, expires_at: null, updated_at: LATER }]);
          await g.delete([folderOwner.id]);
          await g.insertMissing([folderOwner]);
        })();
      await inBatch(apply);
      const once = await grants.ofEnvironment(ENV);
      await inBatch(apply);
      expect(await grants.ofEnvironment(ENV)).toEqual(once);
    });

    it("writes in the writer view's transaction: seen inside it, and outside once it commits (where transactions are atomic)", async () => {
      let seenInside: GrantDoc | null = null;
      let seenOutside: GrantDoc | null = null;
      await inBatch(async (g) => {
        await g.insertMissing([folderOwner]);
        seenInside = await g.get(folderOwner.id);
        seenOutside = await grants.get(folderOwner.id);
      });
      expect(seenInside).toEqual(folderOwner);
      if (store.atomicTransactions) expect(seenOutside).toBeNull();
      expect(await grants.get(folderOwner.id)).toEqual(folderOwner);
    });

    it('keeps nothing of a batch that failed, where transactions are atomic', async () => {
      await inBatch((g) => g.insertMissing([folderOwner]));
      await expect(
        inBatch(async (g) => {
          await g.insertMissing([docEditor]);
          await g.delete([folderOwner.id]);
          await g.putRules({ id: ENV, environment_id: ENV, rules: [] });
          throw new Error('the batch fails');
        }),
      ).rejects.toThrow('the batch fails');
      if (!store.atomicTransactions) return;
      expect(ids(await grants.ofEnvironment(ENV))).toEqual([folderOwner.id]);
      expect(await grants.rules(ENV)).toBeNull();
    });

    it('is emptied with the read models (a rebuild from the log)', async () => {
      await inBatch(async (g) => {
        await g.insertMissing([folderOwner, docEditor]);
        await g.putRules({ id: ENV, environment_id: ENV, rules: [] });
      });
      await writer.transaction(() => writer.dropAll());
      expect(await grants.count()).toBe(0);
      expect(await grants.rules(ENV)).toBeNull();
    });
  });
}
