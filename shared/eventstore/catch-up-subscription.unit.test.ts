import { getEventListeners } from 'node:events';
import type { RecordedEvent } from '../events/envelope';
import { runCatchUpSubscription } from './catch-up-subscription';

describe('the catch-up loop', () => {
  it('retries a failing read with backoff without piling listeners on its abort signal, and delivers once the read succeeds', async () => {
    const signals: AbortSignal[] = [];
    let failures = 0;
    const errors: unknown[] = [];
    const delivered: number[] = [];
    const event = { position: 1, streamId: 'env-1', streamVersion: 0, type: 'A', data: {}, metadata: {} } as unknown as RecordedEvent;
    const subscription = runCatchUpSubscription({
      fromPosition: 0,
      readBatch: async (after) => {
        if (failures < 4) {
          failures++;
          throw new Error('engine down');
        }
        return after === 0 ? { events: [event], lastPosition: 1 } : { events: [], lastPosition: after };
      },
      waitForMore: (signal) => {
        signals.push(signal);
        return new Promise((resolve) => setTimeout(resolve, 5));
      },
      handler: async (events) => {
        delivered.push(...events.map((e) => e.position));
      },
      onError: (error) => errors.push(error),
    });
    const deadline = Date.now() + 5000;
    // Until the loop has delivered and then waits for more (its signal handed over): under load the check could otherwise run between the two.
    while ((delivered.length === 0 || signals.length === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(errors).toHaveLength(4);
    expect(delivered).toEqual([1]);
    expect(getEventListeners(signals[0]!, 'abort')).toHaveLength(0);
    await subscription.stop();
  });
});
