import type { TaskDelivery, TaskMessage, TaskQueue } from './port';

export interface TaskQueueHarness {
  /** A fresh queue (Kafka: its own topic), empty. */
  create(): Promise<TaskQueue>;
  /**
   * Another handle on the same queue, as a second process would open it
   * (Kafka: a new client on the same topic). Omitted by process-local engines.
   */
  reconnect?(queue: TaskQueue): Promise<TaskQueue>;
  /** Called after each test with every queue the test opened. */
  dispose?(queue: TaskQueue): Promise<void>;
  /** How long an expected delivery may take (Kafka group joins take seconds). */
  deliveryTimeoutMs?: number;
  /** How long to watch for a delivery that must not happen. */
  quietPeriodMs?: number;
  /** Jest timeout per test. */
  testTimeoutMs?: number;
}

let counter = 0;
const uniqueGroup = () => `group-${process.pid}-${Date.now()}-${++counter}`;
const message = (key: string, n: number): TaskMessage => ({ key, type: 'test', body: { n } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Collects deliveries and lets a test wait for the n-th one. */
class Inbox {
  readonly deliveries: TaskDelivery[] = [];
  private waiters: Array<() => void> = [];
  push(delivery: TaskDelivery): void {
    this.deliveries.push(delivery);
    for (const wake of this.waiters.splice(0)) wake();
  }
  async waitFor(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} deliveries, got ${this.deliveries.length} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
  bodies(): unknown[] {
    return this.deliveries.map((d) => d.message.body);
  }
}

/**
 * What every TaskQueue adapter must do. An adapter's test file runs it in a few
 * lines: `describeTaskQueueContract('memory', harness)`. Tests use their own
 * consumer groups (and, through the harness, their own topic).
 */
export function describeTaskQueueContract(name: string, harness: TaskQueueHarness): void {
  const deliveryTimeout = harness.deliveryTimeoutMs ?? 2000;
  const quiet = harness.quietPeriodMs ?? 200;
  const opened: TaskQueue[] = [];
  const open = async (queue: Promise<TaskQueue>) => {
    const q = await queue;
    opened.push(q);
    return q;
  };

  describe(`TaskQueue contract: ${name}`, () => {
    if (harness.testTimeoutMs) jest.setTimeout(harness.testTimeoutMs);
    afterEach(async () => {
      for (const queue of opened.splice(0).reverse()) {
        await queue.close();
        await harness.dispose?.(queue);
      }
    });

    it('delivers a message published before the group started consuming, with its key, type and body', async () => {
      const queue = await open(harness.create());
      await queue.publish({ key: 'task-1', type: 'environment-copy', body: { taskId: 'task-1', nested: { a: [1, 2] } } });
      const inbox = new Inbox();
      await queue.consume({ group: uniqueGroup() }, async (d) => {
        inbox.push(d);
        await d.ack();
      });
      await inbox.waitFor(1, deliveryTimeout);
      expect(inbox.deliveries[0]!.message).toEqual({
        key: 'task-1',
        type: 'environment-copy',
        body: { taskId: 'task-1', nested: { a: [1, 2] } },
      });
      expect(inbox.deliveries[0]!.attempt).toBe(1);
    });

    it('does not deliver an acknowledged message again, not even to a new consumer of the group', async () => {
      const queue = await open(harness.create());
      const group = uniqueGroup();
      const first = new Inbox();
      const consumer = await queue.consume({ group }, async (d) => {
        first.push(d);
        await d.ack();
      });
      await queue.publish(message('a', 1));
      await first.waitFor(1, deliveryTimeout);
      await consumer.stop();
      const second = new Inbox();
      await queue.consume({ group }, async (d) => {
        second.push(d);
        await d.ack();
      });
      await queue.publish(message('b', 2));
      await second.waitFor(1, deliveryTimeout);
      await sleep(quiet);
      expect(second.bodies()).toEqual([{ n: 2 }]);
      expect(first.bodies()).toEqual([{ n: 1 }]);
    });

    it('delivers again a message whose handler threw', async () => {
      const queue = await open(harness.create());
      const inbox = new Inbox();
      await queue.consume({ group: uniqueGroup() }, async (d) => {
        inbox.push(d);
        if (inbox.deliveries.length === 1) throw new Error('transient failure');
        await d.ack();
      });
      await queue.publish(message('k', 1));
      await inbox.waitFor(2, deliveryTimeout * 3);
      expect(inbox.bodies()).toEqual([{ n: 1 }, { n: 1 }]);
      expect(inbox.deliveries[1]!.attempt).toBeGreaterThanOrEqual(inbox.deliveries[0]!.attempt);
      await sleep(quiet);
      expect(inbox.deliveries).toHaveLength(2);
    });

    it('delivers again a message whose handler returned without acknowledging it', async () => {
      const queue = await open(harness.create());
      const inbox = new Inbox();
      await queue.consume({ group: uniqueGroup() }, async (d) => {
        inbox.push(d);
        if (inbox.deliveries.length > 1) await d.ack();
      });
      await queue.publish(message('k', 1));
      await inbox.waitFor(2, deliveryTimeout * 3);
      expect(inbox.bodies()).toEqual([{ n: 1 }, { n: 1 }]);
    });

    it('gives an unacknowledged message to the next consumer of the group when its consumer stops (a crash)', async () => {
      const queue = await open(harness.create());
      const group = uniqueGroup();
      const first = new Inbox();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const consumer = await queue.consume({ group }, async (d) => {
        first.push(d);
        await held; // never acknowledges
      });
      await queue.publish(message('k', 1));
      await first.waitFor(1, deliveryTimeout);
      const stopping = consumer.stop();
      release();
      await stopping;
      const survivorQueue = harness.reconnect ? await open(harness.reconnect(queue)) : queue;
      const second = new Inbox();
      await survivorQueue.consume({ group }, async (d) => {
        second.push(d);
        await d.ack();
      });
      await second.waitFor(1, deliveryTimeout * 3);
      expect(second.bodies()).toEqual([{ n: 1 }]);
    });

    it('delivers the messages of one key in publish order, one at a time', async () => {
      const queue = await open(harness.create());
      const inbox = new Inbox();
      let inFlight = 0;
      let maxInFlight = 0;
      await queue.consume({ group: uniqueGroup(), concurrency: 4 }, async (d) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(5);
        inbox.push(d);
        inFlight--;
        await d.ack();
      });
      for (let n = 1; n <= 5; n++) await queue.publish(message('same-key', n));
      await inbox.waitFor(5, deliveryTimeout);
      expect(inbox.bodies()).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
      expect(maxInFlight).toBe(1);
    });

    it('gives each message to one consumer of a group, and every message to each group', async () => {
      const queue = await open(harness.create());
      const groupA = uniqueGroup();
      const a1 = new Inbox();
      const a2 = new Inbox();
      const b = new Inbox();
      const ackInto = (inbox: Inbox) => async (d: TaskDelivery) => {
        inbox.push(d);
        await d.ack();
      };
      await queue.consume({ group: groupA }, ackInto(a1));
      await queue.consume({ group: groupA }, ackInto(a2));
      await queue.consume({ group: uniqueGroup() }, ackInto(b));
      for (let n = 1; n <= 6; n++) await queue.publish(message(`key-${n}`, n));
      await b.waitFor(6, deliveryTimeout);
      const deadline = Date.now() + deliveryTimeout;
      while (a1.deliveries.length + a2.deliveries.length < 6 && Date.now() < deadline) await sleep(20);
      await sleep(quiet);
      const inGroupA = [...a1.bodies(), ...a2.bodies()].map((body) => (body as { n: number }).n).sort((x, y) => x - y);
      expect(inGroupA).toEqual([1, 2, 3, 4, 5, 6]);
      expect(
        b
          .bodies()
          .map((body) => (body as { n: number }).n)
          .sort((x, y) => x - y),
      ).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('calls no handler after its consumer stopped', async () => {
      const queue = await open(harness.create());
      const inbox = new Inbox();
      const consumer = await queue.consume({ group: uniqueGroup() }, async (d) => {
        inbox.push(d);
        await d.ack();
      });
      await consumer.stop();
      await queue.publish(message('k', 1));
      await sleep(quiet);
      expect(inbox.deliveries).toHaveLength(0);
    });
  });
}
