import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { describeTaskQueueContract } from './contract';
import { KafkaTaskQueue, type KafkaTaskQueueOptions } from './kafka-task-queue';

/**
 * The task-queue contract against a real Kafka broker (scripts/test-servers.sh
 * start exports KAFKA_BROKERS). Each test gets its own topic.
 */
const brokers = process.env.KAFKA_BROKERS;
if (!brokers) throw new Error('KAFKA_BROKERS is not set: start the test servers (scripts/test-servers.sh start) or run .ci/e2e.sh');

const run = `contract-${process.pid}-${Date.now()}`;
let counter = 0;
const settings = new Map<object, KafkaTaskQueueOptions>();
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describeTaskQueueContract('kafka', {
  async create() {
    const options: KafkaTaskQueueOptions = {
      brokers: brokers.split(','),
      topic: `${run}-${++counter}.tasks`,
      partitions: 3,
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 300,
      redeliveryDelayMs: 100,
      logger,
    };
    const queue = await KafkaTaskQueue.connect(options);
    settings.set(queue, options);
    return queue;
  },
  async reconnect(queue) {
    return KafkaTaskQueue.connect(settings.get(queue)!);
  },
  deliveryTimeoutMs: 20_000,
  quietPeriodMs: 1500,
  testTimeoutMs: 90_000,
});

describe('KafkaTaskQueue', () => {
  it('hands a message that is not ours to the handler as invalid-message, so it can be skipped', async () => {
    const options: KafkaTaskQueueOptions = {
      brokers: brokers.split(','),
      topic: `${run}-foreign.tasks`,
      partitions: 1,
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 300,
      redeliveryDelayMs: 100,
      logger,
    };
    const queue = await KafkaTaskQueue.connect(options);
    const kafka = new Kafka({ brokers: options.brokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: options.topic, messages: [{ key: 'x', value: 'not json' }] });
    await producer.disconnect();
    await queue.publish({ key: 'y', type: 'environment-copy', body: { taskId: 'y' } });
    const seen: string[] = [];
    await queue.consume({ group: `${run}-foreign` }, async (d) => {
      seen.push(d.message.type);
      await d.ack();
    });
    const deadline = Date.now() + 20_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await queue.close();
    expect(seen).toEqual(['invalid-message', 'environment-copy']);
  }, 60_000);

  it('keeps the groups of two queues apart when they share a group name and a cluster (two deployments on one Kafka)', async () => {
    const options = (topic: string): KafkaTaskQueueOptions => ({
      brokers: brokers.split(','),
      topic,
      partitions: 3,
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 300,
      redeliveryDelayMs: 100,
      logger,
    });
    const queues = [await KafkaTaskQueue.connect(options(`${run}-a.tasks`)), await KafkaTaskQueue.connect(options(`${run}-b.tasks`))];
    const seen: string[][] = [[], []];
    try {
      // The same group name in both, as every deployment's task service uses.
      for (const [i, queue] of queues.entries())
        await queue.consume({ group: `${run}-task-service` }, async (d) => {
          seen[i]!.push(d.message.key);
          await d.ack();
        });
      for (const [i, queue] of queues.entries())
        for (const n of [1, 2, 3, 4, 5, 6]) await queue.publish({ key: `${'ab'[i]}${n}`, type: 'environment-copy', body: {} });
      const deadline = Date.now() + 30_000;
      while (seen.flat().length < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    } finally {
      for (const queue of queues) await queue.close();
    }
    expect(seen.map((keys) => keys.sort())).toEqual([
      ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'],
      ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'],
    ]);
  }, 90_000);
});
