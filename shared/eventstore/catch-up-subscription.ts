import { EventEmitter } from 'node:events';
import type { RecordedEvent } from '../events/envelope';
import type { SubscribeOptions, Subscription } from './port';

/** Events per handler call for a read after `after`: the subscriber's `batchSize` (500 when unset), at least 1. */
export function batchSizeAfter(options: Pick<SubscribeOptions, 'batchSize'>, after: number): number {
  const size = typeof options.batchSize === 'function' ? options.batchSize(after) : (options.batchSize ?? 500);
  return Math.max(1, Math.floor(size));
}

export interface CatchUpLoop {
  fromPosition: number;
  /** Reads the next events after `after`; `lastPosition` is how far the read got (filtered-out events included). */
  readBatch(after: number): Promise<{ events: RecordedEvent[]; lastPosition: number }>;
  /** Resolves when more events may be there (or when aborted). */
  waitForMore(signal: AbortSignal): Promise<void>;
  handler(events: RecordedEvent[]): Promise<void>;
  onError?: (error: unknown) => void;
}

/**
 * The polling catch-up loop shared by adapters whose engine has no push
 * subscription of its own: read a batch, hand it over, repeat; when caught up,
 * wait to be woken. A failing read is retried with backoff; a failing handler
 * ends the loop (the owner decides whether to resubscribe).
 */
export function runCatchUpSubscription(loop: CatchUpLoop): Subscription {
  const abort = new AbortController();
  let position = loop.fromPosition;
  const running = (async () => {
    let backoffMs = 50;
    while (!abort.signal.aborted) {
      let batch: { events: RecordedEvent[]; lastPosition: number };
      try {
        batch = await loop.readBatch(position);
        backoffMs = 50;
      } catch (error) {
        if (abort.signal.aborted) return;
        loop.onError?.(error);
        await sleep(backoffMs, abort.signal);
        backoffMs = Math.min(backoffMs * 2, 5000);
        continue;
      }
      if (batch.events.length > 0) {
        try {
          await loop.handler(batch.events);
        } catch (error) {
          loop.onError?.(error);
          return;
        }
      }
      if (batch.lastPosition === position) await loop.waitForMore(abort.signal);
      // A synchronous engine resolves every read at once: yield between batches, or a long catch-up starves the process (HTTP, timers, appends).
      else await new Promise((resolve) => setImmediate(resolve));
      position = batch.lastPosition;
    }
  })();
  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // The listener goes with the sleep: a read retried for as long as the engine is down would otherwise pile them up on the signal.
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/**
 * Wakes the subscribers of a polling store when an append is stored. A subscriber to a few
 * categories (the task relay follows `task`) is woken only by appends of one of them, not by every
 * write of facts only to find nothing of its own (that read cost the main thread a share of every
 * single create's CPU: docs/bench-history/design-choices.md); the poll interval still bounds how late
 * it sees appends it is not told of (another process's).
 */
export class AppendWakeups {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  constructor(private readonly pollIntervalMs: number) {}

  /** Appends of `categories` were stored; without them (another connection's appends, the store closing) every waiter wakes. */
  notify(categories?: ReadonlySet<string>): void {
    this.emitter.emit('appended', categories);
  }

  /** Resolves on the next notified append of one of `categories` (any when null), after the poll interval, or on abort. */
  wait(signal: AbortSignal, categories: ReadonlySet<string> | null): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off('appended', appended);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const appended = (written?: ReadonlySet<string>) => {
        if (categories === null || written === undefined || [...categories].some((category) => written.has(category))) done();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      this.emitter.on('appended', appended);
      signal.addEventListener('abort', done);
    });
  }
}

/** How a polling store reads its log for a subscription. */
export interface SubscriptionReads {
  readAll(after: number, limit: number): Promise<RecordedEvent[]>;
  /**
   * Up to `limit` events of `categories` after `after`, filtered by the engine (its category
   * index), and the head the read stopped at: read first, so that every position up to it has
   * committed and the next read may skip past other categories' events up to it.
   */
  readCategories(after: number, limit: number, categories: string[]): Promise<{ events: RecordedEvent[]; head: number }>;
}

/** `subscribe` of a store that polls its log and is woken by its own appends. */
export function subscribeByPolling(
  options: SubscribeOptions,
  handler: (events: RecordedEvent[]) => Promise<void>,
  reads: SubscriptionReads,
  wakeups: AppendWakeups,
): Subscription {
  const categories = options.categories ? new Set(options.categories) : null;
  return runCatchUpSubscription({
    fromPosition: options.fromPosition,
    readBatch: async (after) => {
      const limit = batchSizeAfter(options, after);
      if (!categories) {
        const events = await reads.readAll(after, limit);
        return { events, lastPosition: events.at(-1)?.position ?? after };
      }
      const { events, head } = await reads.readCategories(after, limit, [...categories]);
      return { events, lastPosition: events.length === limit ? events.at(-1)!.position : Math.max(after, head) };
    },
    waitForMore: (signal) => wakeups.wait(signal, categories),
    handler,
    onError: options.onError,
  });
}
