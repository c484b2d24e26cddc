import type { Logger } from 'pino';
import type { DocumentStore } from '../shared/docstore/port';

/** Work that at most one process may run at a time (a projection runner, the outbox relay). */
export type ExclusiveWork = () => Promise<{ stop(): Promise<void> }>;

/** Runs work exclusively among the processes that share a document store. The embedded process simply runs it. */
export type RunExclusively = (name: string, work: ExclusiveWork) => Promise<{ stop(): Promise<void> }>;

export const runNow: RunExclusively = async (_name, work) => work();

export interface LeaseOptions {
  /** How long a lease lasts without renewal (a crashed holder is replaced after at most this). */
  ttlMs: number;
  logger: Logger;
  /** Called when the lease was lost (the work is stopped already) or the work could not start. */
  onLost?: (name: string) => void;
}

export interface LeasedWork {
  /** True while this process holds the lease and its work runs. */
  readonly active: boolean;
  stop(): Promise<void>;
}

/**
 * A lease kept in the document store's checkpoints (so it needs nothing but
 * compare-and-set): the checkpoint `lease:<name>` holds the time (ms since the
 * epoch) until which its holder owns it. A process takes an expired (or
 * released) lease by compare-and-set from the value it read, renews it every
 * third of the TTL the same way, and stops its work as soon as a renewal
 * fails or the lease runs out unrenewed (e.g. the store is unreachable).
 * Stopping releases the lease (sets it to 0), so a successor starts at once;
 * a holder that crashed is replaced once its lease expires. Clocks of the
 * processes must agree to well within the TTL.
 */
export function runUnderLease(store: DocumentStore, name: string, work: ExclusiveWork, options: LeaseOptions): LeasedWork {
  const key = `lease:${name}`;
  const logger = options.logger.child({ lease: name });
  let held: number | null = null;
  let running: { stop(): Promise<void> } | null = null;
  let stopped = false;
  let wake: (() => void) | null = null;
  let watchdog: NodeJS.Timeout | null = null;

  /** Stops the work when the lease runs out, even if a renewal is stuck on an unreachable store. */
  const arm = () => {
    if (watchdog) clearTimeout(watchdog);
    watchdog = held === null ? null : setTimeout(() => void expire(), Math.max(0, held - Date.now()));
  };
  const expire = async () => {
    if (held === null || Date.now() < held) return;
    logger.error('lease expired before it could be renewed; stopping the work');
    held = null;
    await release('expired');
    options.onLost?.(name);
  };

  const release = async (reason: string) => {
    if (watchdog) clearTimeout(watchdog);
    watchdog = null;
    const wasRunning = running;
    running = null;
    if (wasRunning) await wasRunning.stop().catch((error: unknown) => logger.error({ err: error }, 'stopping the leased work failed'));
    if (held !== null) {
      const mine = held;
      held = null;
      await store.saveCheckpoint(key, mine, 0).catch(() => undefined);
      logger.info({ reason }, 'lease released');
    }
  };

  const step = async () => {
    const now = Date.now();
    if (held === null) {
      const current = await store.loadCheckpoint(key);
      if (current !== null && current > now) return;
      const until = now + options.ttlMs;
      if (!(await store.saveCheckpoint(key, current, until)).ok) return;
      held = until;
      arm();
      logger.info('lease acquired; starting the work');
      try {
        running = await work();
      } catch (error) {
        logger.error({ err: error }, 'the leased work failed to start');
        await release('start failed');
        options.onLost?.(name);
      }
      return;
    }
    if (now >= held) return expire();
    const until = Math.max(now + options.ttlMs, held + 1);
    const renewed = await store.saveCheckpoint(key, held, until);
    if (held === null) return; // expired meanwhile
    if (renewed.ok) {
      held = until;
      arm();
      return;
    }
    logger.error({ current: renewed.current }, 'lease taken by another process; stopping the work');
    held = null;
    await release('lost');
    options.onLost?.(name);
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await step();
      } catch (error) {
        logger.warn({ err: error }, 'lease check failed; retrying');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, options.ttlMs / 3);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        wake = done;
      });
      wake = null;
    }
  })();

  return {
    get active() {
      return running !== null;
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await release('stopping');
    },
  };
}

/** A RunExclusively over leases in `store`: the work starts whenever this process wins the lease. */
export function leasedRunner(store: DocumentStore, options: LeaseOptions): RunExclusively {
  return async (name, work) => runUnderLease(store, name, work, options);
}
