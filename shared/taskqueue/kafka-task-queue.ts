import { Kafka, logLevel, type Consumer, type KafkaMessage, type LogEntry, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { ConsumeOptions, TaskConsumer, TaskHandler, TaskMessage, TaskQueue } from './port';
import { sleep } from '../sleep';

export interface KafkaTaskQueueOptions {
  brokers: string[];
  /** The one topic of this queue (created up front if missing). */
  topic: string;
  clientId?: string;
  /** Partitions of the topic when this queue creates it: the most consumers of a group that get work at once. Default 6. */
  partitions?: number;
  /** Replication factor when this queue creates the topic. Default 1 (a single broker); use 3 on a real cluster. */
  replicationFactor?: number;
  /** How long the broker waits for a silent consumer before giving its partitions to others (≥ the broker's 6 s minimum). Default 10 s. */
  sessionTimeoutMs?: number;
  /** Heartbeat period, also while a handler runs. Default 1 s. */
  heartbeatIntervalMs?: number;
  /** Longest a rebalance waits for a member busy with a task before dropping it. Default 60 s. */
  rebalanceTimeoutMs?: number;
  /** First wait before a message that was not acknowledged is handled again; doubles up to `maxRedeliveryDelayMs`. Default 1 s. */
  redeliveryDelayMs?: number;
  maxRedeliveryDelayMs?: number;
  logger?: Logger;
}

/** Longest `consume` waits for the group to take the new member in. */
const JOIN_TIMEOUT_MS = 120_000;

interface Envelope {
  type: string;
  body: Record<string, unknown>;
}

/**
 * The task queue on Kafka (kafkajs). One topic; a message's key is its Kafka
 * key, so messages of one key share a partition and keep their order.
 *
 * Publishing waits for all in-sync replicas (`acks: -1`) from an idempotent
 * producer. A consumer group member handles its partitions concurrently (up
 * to `concurrency`), each partition one message at a time. Offsets are never
 * committed automatically: `ack()` commits the message's offset, and the
 * handler calls it once the message's effects are durable. A message that is
 * not acknowledged (the handler threw or returned without `ack`) is handled
 * again in place after a backoff, so the partition does not move past it; if
 * the consumer stops or dies first, the uncommitted offset makes the group
 * deliver it again to whoever takes the partition. That is at-least-once:
 * handlers must be idempotent.
 */
export class KafkaTaskQueue implements TaskQueue {
  readonly durable = true;
  private readonly consumers = new Set<KafkaTaskConsumer>();
  private closed = false;

  private constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly options: Required<Omit<KafkaTaskQueueOptions, 'logger'>> & { logger?: Logger },
  ) {}

  /** Connects, creates the topic if it does not exist, and connects the producer. */
  static async connect(options: KafkaTaskQueueOptions): Promise<KafkaTaskQueue> {
    const settings = {
      clientId: 'rebac',
      partitions: 6,
      replicationFactor: 1,
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1000,
      rebalanceTimeoutMs: 60_000,
      redeliveryDelayMs: 1000,
      maxRedeliveryDelayMs: 30_000,
      ...options,
    };
    const kafka = new Kafka({
      clientId: settings.clientId,
      brokers: settings.brokers,
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => forward(settings.logger, entry),
    });
    const admin = kafka.admin({ retry: { initialRetryTime: 300, retries: 8 } });
    await admin.connect();
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [{ topic: settings.topic, numPartitions: settings.partitions, replicationFactor: settings.replicationFactor }],
      });
    } finally {
      await admin.disconnect();
    }
    // Idempotent: a send retried after a lost acknowledgement is not written twice (kafkajs then retries without limit).
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    return new KafkaTaskQueue(kafka, producer, settings);
  }

  get topic(): string {
    return this.options.topic;
  }

  async publish(message: TaskMessage): Promise<void> {
    if (this.closed) throw new Error('task queue is closed');
    const envelope: Envelope = { type: message.type, body: message.body };
    await this.producer.send({ topic: this.options.topic, acks: -1, messages: [{ key: message.key, value: JSON.stringify(envelope) }] });
  }

  async consume(options: ConsumeOptions, handler: TaskHandler): Promise<TaskConsumer> {
    if (this.closed) throw new Error('task queue is closed');
    const consumer = new KafkaTaskConsumer(this.kafka, this.options, options, handler, () => this.consumers.delete(consumer));
    this.consumers.add(consumer);
    try {
      await consumer.start();
    } catch (error) {
      await consumer.stop();
      throw error;
    }
    return consumer;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.consumers].map((c) => c.stop()));
    await this.producer.disconnect();
  }
}

/**
 * The Kafka consumer group of `group` on `topic`: named after the topic too, because a group is
 * the cluster's, not the topic's. Two deployments on one cluster (each its own KAFKA_TOPIC_PREFIX,
 * so its own topic) whose task services both joined `task-service` would be one group across both
 * topics, and the broker would hand one deployment's partitions to the other's members, which do
 * not read that topic: its tasks would never run.
 */
const groupIdOf = (topic: string, group: string): string => `${topic}.${group}`;

/** One member of a consumer group. */
class KafkaTaskConsumer implements TaskConsumer {
  private readonly consumer: Consumer;
  private stopping = false;
  private stopped: Promise<void> | null = null;
  private readonly running = new Set<Promise<void>>();
  /** Wakes handlers waiting out a redelivery backoff when the consumer stops. */
  private readonly wake = new AbortController();

  constructor(
    kafka: Kafka,
    private readonly queue: Required<Omit<KafkaTaskQueueOptions, 'logger'>> & { logger?: Logger },
    private readonly options: ConsumeOptions,
    private readonly handler: TaskHandler,
    private readonly onStopped: () => void,
  ) {
    this.consumer = kafka.consumer({
      groupId: groupIdOf(queue.topic, options.group),
      sessionTimeout: queue.sessionTimeoutMs,
      heartbeatInterval: queue.heartbeatIntervalMs,
      rebalanceTimeout: queue.rebalanceTimeoutMs,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 500,
    });
  }

  /** Joins the group; resolves once the group assigned this member its partitions (possibly none). */
  async start(): Promise<void> {
    const joined = new Promise<void>((resolve) => {
      const remove = this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
        remove();
        resolve();
      });
    });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      this.queue.logger?.error({ err: payload.error, group: this.options.group, restart: payload.restart }, 'kafka consumer crashed');
    });
    await this.consumer.connect();
    // A group that never committed starts at the oldest retained message.
    await this.consumer.subscribe({ topic: this.queue.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: Math.max(1, this.options.concurrency ?? 1),
      eachMessage: async ({ topic, partition, message, ...payload }) => {
        const run = this.handle(topic, partition, message, () => payload.heartbeat());
        this.running.add(run);
        try {
          await run;
        } finally {
          this.running.delete(run);
        }
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`consumer group ${this.options.group} not joined within ${JOIN_TIMEOUT_MS} ms`)),
        JOIN_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([joined, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Handles one message until it is acknowledged, or until the consumer stops
   * (then the offset stays uncommitted and the group delivers it again).
   * Returning lets kafkajs go on with the partition, so this only returns once
   * the message is done or the consumer is stopping.
   */
  private async handle(topic: string, partition: number, message: KafkaMessage, heartbeat: () => Promise<void>): Promise<void> {
    const taskMessage: TaskMessage = { key: message.key?.toString('utf8') ?? '', ...parseEnvelope(message.value) };
    const next = (BigInt(message.offset) + 1n).toString();
    for (let attempt = 1; !this.stopping; attempt++) {
      let acknowledged = false;
      // Keep the membership alive while a long task runs (kafkajs only heartbeats between messages).
      const beat = setInterval(() => void heartbeat().catch(() => undefined), this.queue.heartbeatIntervalMs);
      try {
        await this.handler({
          message: taskMessage,
          attempt,
          ack: async () => {
            // The handler says the effects are durable: the message is done even if this commit fails
            // (the partition then went to another member, which gets the message again and finds it done).
            acknowledged = true;
            await this.consumer.commitOffsets([{ topic, partition, offset: next }]);
          },
        });
      } catch (error) {
        if (!acknowledged && !this.stopping) {
          this.queue.logger?.debug(
            { err: error, key: taskMessage.key, attempt },
            'task handler failed; handling the message again after a backoff',
          );
        }
      } finally {
        clearInterval(beat);
      }
      if (acknowledged) return;
      await sleep(Math.min(this.queue.redeliveryDelayMs * 2 ** (attempt - 1), this.queue.maxRedeliveryDelayMs), this.wake.signal);
    }
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      this.wake.abort();
      // Let running handlers finish (they may still acknowledge), then leave the group.
      await Promise.allSettled([...this.running]);
      await this.consumer.disconnect();
      this.onStopped();
    })();
    return this.stopped;
  }
}

/** A message that is not ours (not our JSON) reaches the handler as type `invalid-message`, so it is acknowledged and skipped rather than retried forever. */
function parseEnvelope(value: Buffer | null): Envelope {
  try {
    const parsed = JSON.parse(value?.toString('utf8') ?? '') as Partial<Envelope>;
    if (typeof parsed.type === 'string') return { type: parsed.type, body: parsed.body ?? {} };
  } catch {
    // fall through
  }
  return { type: 'invalid-message', body: {} };
}

/** Keys pino writes itself or the service's loggers bind: a kafkajs field by one of these names is renamed, or the line would carry the key twice. */
const TAKEN_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'component']);

function forward(logger: Logger | undefined, { level, namespace, log }: LogEntry): void {
  if (!logger) return;
  const { message, ...rest } = log;
  const fields: Record<string, unknown> = { kafka: namespace };
  for (const [key, value] of Object.entries(rest)) fields[TAKEN_KEYS.has(key) ? `kafka_${key}` : key] = value;
  if (level === logLevel.ERROR || level === logLevel.NOTHING) logger.error(fields, message);
  else if (level === logLevel.WARN) logger.warn(fields, message);
  else if (level === logLevel.INFO) logger.info(fields, message);
  else logger.debug(fields, message);
}
