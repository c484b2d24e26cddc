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
