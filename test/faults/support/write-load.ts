import type { ApiClient } from '../../support/embedded-server';
import { FACTS } from '../../support/embedded-server';
import { sleep } from '../../support/until';

/** One write of the load: what it asked to store, and what it was answered. */
export interface WriteAttempt {
  kind: 'instance' | 'tuple' | 'assignment';
  /** The file the write is about: `file:<file>` is created, linked to folder:docs, and given a viewer `u-<file>`. */
  file: string;
  replica: number;
  /** The HTTP status, or 'network' when the replica did not answer (killed, restarting). */
  status: number | 'network';
  /** A 503 with X-Event-Position: the write was stored, and then waited too long for the read models. */
  storedThenRefused?: boolean;
}

/** What one check of the load was answered. */
export interface CheckAttempt {
  replica: number;
  status: number | 'network';
  allow?: boolean;
}

/** The files the load created and the assignments and tuples it made for them: every write is about one file. */
export const writeIdentity = {
  instance: (file: string) => `instance file:${file}`,
  tuple: (file: string) => `tuple folder:docs parent file:${file}`,
  assignment: (file: string) => `assignment u-${file} viewer file:${file}`,
};

/**
 * Writes and checks against every command-service replica at once, until stopped: each writer
 * creates a file, links it to folder:docs and assigns it a viewer (a tuple and a role assignment
 * only once the file was acknowledged), on the replicas in turn; each checker asks its replica
 * whether alice (editor of folder:docs) may write the seed's `readme`. A write is never retried:
 * each attempt names a new file, so the log must hold every acknowledged one exactly once and no
 * other more than once. A refused or unanswered write waits a little before the next (a replica
 * or the log is away).
 */
export class WriteLoad {
  readonly writes: WriteAttempt[] = [];
  readonly checks: CheckAttempt[] = [];
  private stopping = false;
  private next = 0;
  private running: Promise<void> | null = null;

  constructor(
    /** The replicas' clients as they are now (a restarted replica has another URL). */
    private readonly replicas: () => ApiClient[],
    private readonly prefix: string,
    private readonly writers = 4,
  ) {}

  start(): this {
    const loops = [...Array.from({ length: this.writers }, (_, w) => this.writer(w)), ...this.replicas().map((_, r) => this.checker(r))];
    this.running = Promise.all(loops).then(() => undefined);
    return this;
  }

  /** Lets every request under way finish, and starts no other. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  acknowledged(): number {
    return this.writes.filter((w) => w.status === 200).length;
  }

  /** Resolves once `count` more writes than now have been acknowledged. */
  async acknowledgedMore(count: number, timeoutMs = 60_000): Promise<void> {
    const target = this.acknowledged() + count;
    const deadline = Date.now() + timeoutMs;
    while (this.acknowledged() < target) {
      if (Date.now() > deadline) throw new Error(`the load did not get ${count} more writes acknowledged in ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  private async writer(w: number): Promise<void> {
    while (!this.stopping) {
      const file = `${this.prefix}-${this.next++}`;
      const replica = (w + this.next) % this.replicas().length;
      const created = await this.write('instance', file, replica, `${FACTS}/resource_instances`, {
        key: file,
        resource: 'file',
        tenant: 'acme',
      });
      if (created) {
        await this.write('tuple', file, replica, `${FACTS}/relationship_tuples`, {
          subject: 'folder:docs',
          relation: 'parent',
          object: `file:${file}`,
        });
        await this.write('assignment', file, replica, `${FACTS}/role_assignments`, {
          user: `u-${file}`,
          role: 'viewer',
          resource_instance: `file:${file}`,
        });
      }
    }
  }

  private async write(kind: WriteAttempt['kind'], file: string, replica: number, path: string, body: unknown): Promise<boolean> {
    const attempt: WriteAttempt = { kind, file, replica, status: 'network' };
    this.writes.push(attempt);
    try {
      const r = await this.replicas()[replica]!.post(path, body);
      attempt.status = r.status;
      if (r.status === 503 && r.headers.get('x-event-position') !== null) attempt.storedThenRefused = true;
    } catch {
      // The replica is down (killed, or restarting): the outcome is unknown, as for a 503.
    }
    if (attempt.status !== 200) await sleep(100);
    return attempt.status === 200;
  }

  private async checker(replica: number): Promise<void> {
    while (!this.stopping) {
      const attempt: CheckAttempt = { replica, status: 'network' };
      this.checks.push(attempt);
      try {
        const r = await this.replicas()[replica]!.post('/allowed', {
          user: { key: 'alice' },
          action: 'write',
          resource: { type: 'file', key: 'readme', tenant: 'acme' },
        });
        attempt.status = r.status;
        attempt.allow = (r.body as { allow?: boolean }).allow;
      } catch {
        await sleep(100);
      }
      await sleep(20);
    }
  }
}

/** Statuses and their counts, e.g. `200×310 503×12 network×3`. */
export function statusCounts(statuses: Array<number | 'network'>): string {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(String(s), (counts.get(String(s)) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
}
