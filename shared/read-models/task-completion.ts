import type { TaskStore } from '../read-stores/tasks/port';

export type WaitOutcome = { finished: true; position: number } | { finished: false; reason: 'timeout' | 'aborted' };

const RECENT_LIMIT = 10_000;

/**
 * Wakes requests held with `wait` when their task finishes, without polling
 * per request: a held request is a timer and a map entry. The task projection
 * calls `finished` as it folds a task's outcome; the position it passes is the
 * outcome's log position, which the waiter then waits for in the read models
 * (the projection calls `finished` before its batch commits).
 *
 * Where the projection runs in another process, `pollFrom` runs one shared
 * poller of the task read model for all held requests of this process.
 */
export class TaskCompletion {
  private readonly waiters = new Map<string, Set<(outcome: WaitOutcome) => void>>();
  /** Recently finished tasks, so a waiter that registers just after the outcome still sees it. */
  private readonly recent = new Map<string, number>();

  /** Number of requests held right now. */
  get waiting(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  finished(taskId: string, position: number): void {
    this.recent.set(taskId, position);
    if (this.recent.size > RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value!);
    const set = this.waiters.get(taskId);
    if (!set) return;
    this.waiters.delete(taskId);
    for (const wake of set) wake({ finished: true, position });
  }

  /** Resolves when the task finishes, after `timeoutMs`, or when `signal` aborts (the client went away), whichever comes first. */
  wait(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    const known = this.recent.get(taskId);
    if (known !== undefined) return Promise.resolve({ finished: true, position: known });
    if (signal?.aborted) return Promise.resolve({ finished: false, reason: 'aborted' });
    return new Promise((resolve) => {
      let set = this.waiters.get(taskId);
      if (!set) this.waiters.set(taskId, (set = new Set()));
      const waiters = set;
      const done = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(taskId) === waiters) this.waiters.delete(taskId);
        resolve(outcome);
      };
      const onAbort = () => done({ finished: false, reason: 'aborted' });
      const timer = setTimeout(() => done({ finished: false, reason: 'timeout' }), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.add(done);
    });
  }

  /**
   * One poller for the whole process: every `intervalMs`, while requests are
   * held, a single query for the held tasks that are no longer processing.
   */
  pollFrom(tasks: Pick<TaskStore, 'finishedAmong'>, intervalMs: number): { stop(): void } {
    let running = false;
    const timer = setInterval(() => {
      if (running || this.waiters.size === 0) return;
      running = true;
      tasks
        .finishedAmong([...this.waiters.keys()])
        .then((finished) => {
          for (const taskId of finished) this.finished(taskId, 0);
        })
        .catch(() => undefined)
        .finally(() => (running = false));
    }, intervalMs);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
}
