/**
 * The task-queue port: commands for background workers (e.g. "copy this
 * environment"), published from the event log by a relay and consumed by the
 * task service. Delivery is at least once: a message is delivered again until a
 * consumer acknowledges it, so handlers must be idempotent.
 *
 * The vocabulary follows Kafka, the distributed engine: messages carry a key
 * (the task id) that decides their order and partition; consumers join a named
 * group, and each message goes to one consumer of every group; acknowledging is
 * committing the message's offset. The embedded engine is an in-process queue
 * with the same delivery rules (but it forgets everything when the process
 * stops, which the relay makes up for by publishing unfinished tasks again).
 */

export interface TaskMessage {
  /** Ordering and partitioning key: messages with one key are delivered in publish order, one at a time per group. */
  key: string;
  /** What the message asks for, e.g. `environment-copy`. */
  type: string;
  /** JSON-serialisable content; keep it a pointer (ids), the log holds the details. */
  body: Record<string, unknown>;
}

export interface TaskDelivery {
  message: TaskMessage;
  /** 1 for the first delivery this consumer knows of; engines that lose count across restarts start again at 1. */
  attempt: number;
  /**
   * Acknowledges the message: call it once the message's effects are durable.
   * After ack the group never receives the message again. Resolves once the
   * acknowledgement itself is durable (Kafka: the offset is committed).
   */
  ack(): Promise<void>;
}

/**
 * Handles one delivery. Throwing, or returning without calling `ack`, means
 * "not done": the message is delivered again later (after a backoff).
 */
export type TaskHandler = (delivery: TaskDelivery) => Promise<void>;

export interface ConsumeOptions {
  /** Consumer group. A group that never consumed before starts at the oldest retained message. */
  group: string;
  /** Most deliveries in flight at once in this consumer (different keys only). Default 1. */
  concurrency?: number;
}

export interface TaskConsumer {
  /** Stops taking deliveries and resolves once no handler of this consumer is running; unacknowledged messages go back to the group. */
  stop(): Promise<void>;
}

export interface TaskQueue {
  /** Publishes a message; once the promise resolves the engine holds it (durably, where the engine is durable). */
  publish(message: TaskMessage): Promise<void>;
  /** Starts a consumer in a group; resolves once it is ready to receive. */
  consume(options: ConsumeOptions, handler: TaskHandler): Promise<TaskConsumer>;
  /** True when published messages survive a process crash (Kafka), false for in-process engines. */
  readonly durable: boolean;
  /** Stops every consumer of this handle and releases connections. */
  close(): Promise<void>;
}
