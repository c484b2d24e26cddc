import { MemoryTaskQueue } from '../../../shared/taskqueue/memory-task-queue';
import type { ConsumeOptions, TaskHandler, TaskMessage, TaskQueue } from '../../../shared/taskqueue/port';

/** A memory queue whose consumers hold every delivery until `open()` is called. */
export function gatedQueue(): TaskQueue & { open(): void } {
  const inner = new MemoryTaskQueue({ redeliveryDelayMs: 50 });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    durable: false,
    publish: (message: TaskMessage) => inner.publish(message),
    consume: (options: ConsumeOptions, handler: TaskHandler) =>
      inner.consume(options, async (delivery) => {
        await gate;
        await handler(delivery);
      }),
    close: () => inner.close(),
    open,
  };
}

/**
 * A memory queue that delivers every message four times: it is published twice
 * (a redelivery after the first was handled) and consumed by two groups (a
 * redelivery racing the first delivery, as in a Kafka rebalance).
 */
export function duplicatingQueue(): TaskQueue & { deliveries: number } {
  const inner = new MemoryTaskQueue({ redeliveryDelayMs: 50 });
  const queue = {
    durable: false,
    deliveries: 0,
    async publish(message: TaskMessage) {
      await inner.publish(message);
      await inner.publish({ ...message, body: { ...message.body, duplicate: true } });
    },
    consume: (options: ConsumeOptions, handler: TaskHandler) =>
      Promise.all([
        inner.consume(options, async (d) => {
          queue.deliveries++;
          await handler(d);
        }),
        inner.consume({ ...options, group: `${options.group}-twin` }, async (d) => {
          queue.deliveries++;
          await handler(d);
        }),
      ]).then(([a, b]) => ({ stop: async () => void (await Promise.all([a.stop(), b.stop()])) })),
    close: () => inner.close(),
  };
  return queue;
}
