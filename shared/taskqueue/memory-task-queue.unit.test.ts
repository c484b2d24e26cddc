import { describeTaskQueueContract } from './contract';
import { MemoryTaskQueue } from './memory-task-queue';

describeTaskQueueContract('memory', {
  create: async () => new MemoryTaskQueue({ redeliveryDelayMs: 20 }),
  deliveryTimeoutMs: 1000,
  quietPeriodMs: 100,
});

describe('MemoryTaskQueue', () => {
  it('waits the redelivery delay before delivering a failed message again', async () => {
    const queue = new MemoryTaskQueue({ redeliveryDelayMs: 150 });
    const times: number[] = [];
    await queue.consume({ group: 'g' }, async (d) => {
      times.push(Date.now());
      if (times.length > 1) await d.ack();
      else throw new Error('fail once');
    });
    await queue.publish({ key: 'k', type: 't', body: {} });
    while (times.length < 2) await new Promise((r) => setTimeout(r, 10));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(140);
    expect(queue.pendingCount('g')).toBe(0);
    await queue.close();
  });

  it('keeps only the retained number of messages for a group that joins later', async () => {
    const queue = new MemoryTaskQueue({ retainedMessages: 2 });
    for (let n = 1; n <= 4; n++) await queue.publish({ key: `k${n}`, type: 't', body: { n } });
    const seen: unknown[] = [];
    await queue.consume({ group: 'late' }, async (d) => {
      seen.push(d.message.body);
      await d.ack();
    });
    while (seen.length < 2) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([{ n: 3 }, { n: 4 }]);
    await queue.close();
  });
});
