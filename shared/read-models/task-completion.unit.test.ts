import { TaskCompletion } from './task-completion';
import type { TaskDoc, TaskStore } from '../read-stores/tasks/port';

describe('TaskCompletion', () => {
  it('wakes every waiter of a task when it finishes, with the outcome position', async () => {
    const completion = new TaskCompletion();
    const a = completion.wait('t1', 10_000);
    const b = completion.wait('t1', 10_000);
    const other = completion.wait('t2', 50);
    expect(completion.waiting).toBe(3);
    completion.finished('t1', 42);
    await expect(a).resolves.toEqual({ finished: true, position: 42 });
    await expect(b).resolves.toEqual({ finished: true, position: 42 });
    await expect(other).resolves.toEqual({ finished: false, reason: 'timeout' });
    expect(completion.waiting).toBe(0);
  });

  it('answers at once for a task that finished just before the wait began', async () => {
    const completion = new TaskCompletion();
    completion.finished('t1', 7);
    await expect(completion.wait('t1', 10_000)).resolves.toEqual({ finished: true, position: 7 });
    expect(completion.waiting).toBe(0);
  });

  it('lets go of a waiter whose signal aborts (the client went away)', async () => {
    const completion = new TaskCompletion();
    const abort = new AbortController();
    const waiting = completion.wait('t1', 10_000, abort.signal);
    abort.abort();
    await expect(waiting).resolves.toEqual({ finished: false, reason: 'aborted' });
    expect(completion.waiting).toBe(0);
  });

  it('can poll the read model once per interval for all held tasks (another process projects)', async () => {
    const completion = new TaskCompletion();
    const queries: unknown[] = [];
    const docs: Partial<TaskDoc>[] = [
      { id: 't1', status: 'processing' },
      { id: 't2', status: 'success' },
    ];
    // The store's one query for the held tasks, recorded as the filter it stands for.
    const tasks: Pick<TaskStore, 'finishedAmong'> = {
      finishedAmong: async (ids) => {
        queries.push({ id: { $in: ids } });
        return docs.filter((doc) => ids.includes(doc.id!) && doc.status !== 'processing').map((doc) => doc.id!);
      },
    };
    const poller = completion.pollFrom(tasks, 20);
    const t1 = completion.wait('t1', 300);
    const t2 = completion.wait('t2', 10_000);
    await expect(t2).resolves.toEqual({ finished: true, position: 0 });
    await expect(t1).resolves.toEqual({ finished: false, reason: 'timeout' });
    poller.stop();
    expect(queries[0]).toEqual({ id: { $in: ['t1', 't2'] } });
    const count = queries.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(queries.length).toBe(count);
  });
});
