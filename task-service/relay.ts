import type { Logger } from 'pino';
import type { DocumentStore } from '../shared/docstore/port';
import type { RecordedEvent } from '../shared/events';
import { isEventOf } from '../shared/events';
import type { EventStore, Subscription } from '../shared/eventstore/port';
import type { TaskQueue } from '../shared/taskqueue/port';
import { COPY_MESSAGE_TYPE } from './worker';
import { sleep } from '../shared/sleep';
import { TASK_RELAY_CHECKPOINT } from '../shared/read-models/layout';
import { activeTraceCarrier, inSpanForCarriers } from '../shared/tracing/spans';

/**
 * The outbox relay: turns copy requests in the log into task-queue messages
 * (the request handler only appends; it never publishes, so there is no dual
 * write). It follows the `task` streams from a checkpoint in the document store.
 *
 * The checkpoint never passes a request whose task has not finished: after a
 * restart the relay publishes every unfinished task again. That is what makes
 * the in-process queue (which forgets on a crash) safe, and it is harmless on
 * Kafka: the worker ignores a finished task and resumes an unfinished one.
 *
 * A batch that fails (the queue or the checkpoint's store is unreachable) is
 * handled again after a backoff (100 ms doubling to 10 s) until it goes
 * through; publishing its requests again is harmless for the same reason.
 * Only a checkpoint moved by someone else (a second relay) stops the relay.
 */
export class TaskRelay {
  private subscription: Subscription | null = null;
  private checkpoint: number | null = null;
  private stopping = false;
  /** Wakes a batch waiting to be handled again when the relay stops. */
  private readonly stopped = new AbortController();
  /** Unfinished tasks seen so far → position of their request. */
  private readonly open = new Map<string, number>();

  constructor(
    private readonly events: EventStore,
    private readonly store: DocumentStore,
    private readonly queue: TaskQueue,
    private readonly logger: Logger,
    private readonly checkpointName = TASK_RELAY_CHECKPOINT,
  ) {}

  async start(): Promise<void> {
    this.checkpoint = await this.store.loadCheckpoint(this.checkpointName);
    const from = this.checkpoint ?? 0;
    this.logger.info({ from }, 'task relay starting');
    this.subscription = this.events.subscribe(
      {
        fromPosition: from,
        categories: ['task'],
        batchSize: 1000,
        onError: (error) => this.logger.error({ err: error }, 'task relay error'),
      },
      (batch) => this.relayWithRetries(batch),
    );
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    await this.subscription?.stop();
    this.subscription = null;
  }

  /** Publishes, retrying with backoff while the queue is down (a failed handler would end the subscription). */
  private async publish(taskId: string): Promise<void> {
    for (let backoffMs = 100; ; backoffMs = Math.min(backoffMs * 2, 10_000)) {
      try {
        // The message carries the trace of the copy request on (the worker continues it).
        await this.queue.publish({ key: taskId, type: COPY_MESSAGE_TYPE, body: { taskId, ...activeTraceCarrier() } });
        return;
      } catch (error) {
        if (this.stopping) throw error;
        this.logger.warn({ err: error, taskId, backoffMs }, 'could not publish a copy task; retrying');
        await new Promise((r) => setTimeout(r, backoffMs));
      }
    }
  }

  private async relayWithRetries(batch: RecordedEvent[]): Promise<void> {
    for (let attempt = 1, backoffMs = 100; ; attempt++, backoffMs = Math.min(backoffMs * 2, 10_000)) {
      try {
        return await this.relay(batch, attempt > 1);
      } catch (error) {
        if (this.stopping || error instanceof RelayCheckpointMovedError) throw error;
        this.logger.error({ err: error, position: batch[0]!.position, attempt, backoffMs }, 'task relay batch failed; handling it again');
        await sleep(backoffMs, this.stopped.signal);
        if (this.stopping) throw error;
      }
    }
  }

  /** `again`: an earlier attempt failed, possibly after its checkpoint save landed (its answer lost on the way). */
  private async relay(batch: RecordedEvent[], again: boolean): Promise<void> {
    for (const event of batch) {
      if (!isEventOf('task', event)) continue;
      const taskId = event.data.taskId;
      if (!taskId) continue;
      if (event.type === 'EnvironmentCopyRequested') {
        this.open.set(taskId, event.position);
        await inSpanForCarriers(
          'task publish',
          [event.metadata],
          () => ({ 'rebac.task_id': taskId }),
          () => this.publish(taskId),
        );
      } else if (event.type === 'TaskSucceeded' || event.type === 'TaskFailed') {
        this.open.delete(taskId);
      }
    }
    const next = this.open.size > 0 ? Math.min(...this.open.values()) - 1 : batch.at(-1)!.position;
    if (next === this.checkpoint) return;
    const saved = await this.store.saveCheckpoint(this.checkpointName, this.checkpoint, next);
    if (!saved.ok && !(again && saved.current === next)) throw new RelayCheckpointMovedError(this.checkpointName, saved.current);
    this.checkpoint = next;
  }
}

/** The stored checkpoint is not where this relay left it: another relay is running. */
class RelayCheckpointMovedError extends Error {
  constructor(name: string, current: number | null) {
    super(`checkpoint ${name} moved to ${current} under us (another relay?)`);
    this.name = 'RelayCheckpointMovedError';
  }
}
