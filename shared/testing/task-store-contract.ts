import type { DocumentStore } from '../docstore/port';
import type { EnvironmentDoc } from '../read-models/read-models';
import { readStoresOf } from '../read-stores/port';
import type { TaskDoc, TaskStore } from '../read-stores/tasks/port';

export interface TaskStoreHarness {
  /** A fresh, empty document store, whose domain stores are under test. */
  create(): Promise<DocumentStore>;
  dispose?(store: DocumentStore): Promise<void>;
}

const task = (id: string, overrides: Partial<TaskDoc> = {}): TaskDoc => ({
  id,
  task_id: id,
  type: 'environment_copy',
  status: 'processing',
  organization_id: 'org-1',
  project_id: 'proj-1',
  source_environment: 'prod',
  source_environment_id: 'env-1',
  target_kind: 'new',
  target_environment_id: 'env-2',
  scope: { facts: true },
  as_of: { position: 7 },
  requested_at_position: 12,
  attempts: 0,
  progress: { source_events_total: 40, source_events_read: 0, events_copied: 0 },
  result: null,
  error: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  finished_at: null,
  ...overrides,
});

/** An environment whose keys are not in alphabetical order, and hold characters some engines treat specially. */
const environment: EnvironmentDoc = {
  id: 'env-2',
  key: 'staging',
  organization_id: 'org-1',
  project_id: 'proj-1',
  name: 'Staging',
  description: null,
  custom_branch_name: null,
  jwks: { 'a.b': { $c: 1 } },
  settings: { zeta: 1, alpha: [true, null] },
  avp_policy_store_id: null,
  created_at: '2026-01-01T00:00:01.000Z',
  updated_at: '2026-01-01T00:00:01.000Z',
};

const T1 = '2026-01-01T00:00:10.000Z';
const T2 = '2026-01-01T00:00:20.000Z';
const T3 = '2026-01-01T00:00:30.000Z';

/**
 * The behaviour every TaskStore adapter must have (docs/read-stores.md), through the domain stores of
 * a document store of its engine: the store's own (committed state) and its writer view's (the
 * projection runner's batch transactions).
 */
export function describeTaskStoreContract(name: string, harness: TaskStoreHarness): void {
  describe(`TaskStore contract: ${name}`, () => {
    let store: DocumentStore;
    let writer: DocumentStore;
    /** The projection's store: writes through the writer view, in a transaction as the runner's batches are. */
    let projected: TaskStore;
    let tasks: TaskStore;
    const inBatch = <R>(work: (tasks: TaskStore) => Promise<R>): Promise<R> => writer.transaction(() => work(projected));

    beforeEach(async () => {
      store = await harness.create();
      writer = store.writerView();
      projected = readStoresOf(writer).tasks;
      tasks = readStoresOf(store).tasks;
    });
    afterEach(async () => {
      await harness.dispose?.(store);
    });

    it('keeps a requested task as it was given, and knows no other', async () => {
      await inBatch((t) => t.requested(task('t1')));
      expect(await tasks.get('t1')).toEqual(task('t1'));
      expect(await tasks.get('t2')).toBeNull();
    });

    it('replaces a task requested again (a replayed request starts its task over)', async () => {
      await inBatch(async (t) => {
        await t.requested(task('t1'));
        await t.started('t1', 1, T1);
        await t.requested(task('t1', { source_environment: 'dev' }));
      });
      expect(await tasks.get('t1')).toEqual(task('t1', { source_environment: 'dev' }));
    });

    it('counts the most attempts seen and keeps the first start', async () => {
      await inBatch(async (t) => {
        await t.requested(task('t1'));
        await t.started('t1', 2, T1);
        await t.started('t1', 1, T2);
      });
      expect(await tasks.get('t1')).toEqual(task('t1', { attempts: 2, started_at: T1, updated_at: T2 }));
    });

    it('sets the progress reported, keeping the total', async () => {
      await inBatch(async (t) => {
        await t.requested(task('t1'));
        await t.progressed('t1', { sourceEventsRead: 10, eventsCopied: 8 }, T1);
      });
      expect((await tasks.get('t1'))?.progress).toEqual({ source_events_total: 40, source_events_read: 10, events_copied: 8 });
      expect((await tasks.get('t1'))?.updated_at).toBe(T1);
    });

    it('keeps a success with its result exactly as given (keys in their order), and no error', async () => {
      await inBatch(async (t) => {
        await t.requested(task('t1', { error: { code: 'X', title: 'x', message: 'earlier' } }));
        await t.succeeded('t1', environment, { sourceEventsRead: 40, eventsCopied: 39 }, T2);
      });
      const done = await tasks.get('t1');
      expect(done).toEqual(
        task('t1', {
          status: 'success',
          result: environment,
          progress: { source_events_total: 40, source_events_read: 40, events_copied: 39 },
          finished_at: T2,
          updated_at: T2,
        }),
      );
      expect(JSON.stringify(done?.result)).toBe(JSON.stringify(environment));
    });

    it('keeps a failure with its error, no result, and the progress as last reported', async () => {
      const error = { code: 'NOT_FOUND', title: 'Not found', message: "no environment 'prod'", additionalInfo: { ref: 'prod' } };
      await inBatch(async (t) => {
        await t.requested(task('t1'));
        await t.progressed('t1', { sourceEventsRead: 5, eventsCopied: 5 }, T1);
        await t.failed('t1', error, T3);
      });
      expect(await tasks.get('t1')).toEqual(
        task('t1', {
          status: 'failure',
          error,
          progress: { source_events_total: 40, source_events_read: 5, events_copied: 5 },
          finished_at: T3,
          updated_at: T3,
        }),
      );
    });

    it('leaves a task it does not hold unwritten by its updates', async () => {
      await inBatch(async (t) => {
        await t.started('t9', 1, T1);
        await t.progressed('t9', { sourceEventsRead: 1, eventsCopied: 1 }, T1);
        await t.succeeded('t9', environment, { sourceEventsRead: 1, eventsCopied: 1 }, T1);
        await t.failed('t9', { code: 'X', title: 'x', message: 'x' }, T1);
      });
      expect(await tasks.get('t9')).toBeNull();
      expect(await tasks.countProcessing()).toBe(0);
    });

    it('ends where it ended when a stream is applied again (replay after a crash)', async () => {
      const apply = (t: TaskStore) =>
        (async () => {
          await t.requested(task('t1'));
          await t.started('t1', 1, T1);
          await t.progressed('t1', { sourceEventsRead: 20, eventsCopied: 20 }, T2);
          await t.succeeded('t1', environment, { sourceEventsRead: 40, eventsCopied: 40 }, T3);
        })();
      await inBatch(apply);
      const once = await tasks.get('t1');
      await inBatch(apply);
      expect(await tasks.get('t1')).toEqual(once);
    });

    it('tells which of the tasks asked for finished, in one call, and counts the processing ones', async () => {
      await inBatch(async (t) => {
        for (const id of ['t1', 't2', 't3', 't4']) await t.requested(task(id));
        await t.succeeded('t2', environment, { sourceEventsRead: 40, eventsCopied: 40 }, T1);
        await t.failed('t3', { code: 'X', title: 'x', message: 'x' }, T1);
      });
      expect((await tasks.finishedAmong(['t1', 't2', 't3', 'unknown'])).sort()).toEqual(['t2', 't3']);
      expect(await tasks.finishedAmong(['t1'])).toEqual([]);
      expect(await tasks.finishedAmong([])).toEqual([]);
      expect(await tasks.countProcessing()).toBe(2);
    });

    it("writes in the writer view's transaction: seen inside it, and outside once it commits (where transactions are atomic)", async () => {
      let seenInside: TaskDoc | null = null;
      let seenOutside: TaskDoc | null = null;
      await inBatch(async (t) => {
        await t.requested(task('t1'));
        seenInside = await t.get('t1');
        seenOutside = await tasks.get('t1');
      });
      expect(seenInside).toEqual(task('t1'));
      if (store.atomicTransactions) expect(seenOutside).toBeNull();
      expect(await tasks.get('t1')).toEqual(task('t1'));
    });

    it('keeps nothing of a batch that failed, where transactions are atomic', async () => {
      await inBatch((t) => t.requested(task('t1')));
      await expect(
        inBatch(async (t) => {
          await t.requested(task('t2'));
          await t.failed('t1', { code: 'X', title: 'x', message: 'x' }, T1);
          throw new Error('the batch fails');
        }),
      ).rejects.toThrow('the batch fails');
      if (!store.atomicTransactions) return;
      expect(await tasks.get('t2')).toBeNull();
      expect(await tasks.get('t1')).toEqual(task('t1'));
    });

    it('is emptied with the read models (a rebuild from the log)', async () => {
      await inBatch((t) => t.requested(task('t1')));
      await writer.transaction(() => writer.dropAll());
      expect(await tasks.get('t1')).toBeNull();
      expect(await tasks.countProcessing()).toBe(0);
    });
  });
}
