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
