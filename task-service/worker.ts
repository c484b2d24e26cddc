import type { Logger } from 'pino';
import type { CommandPipeline } from '../shared/cqrs/command-pipeline';
import { DomainError, StreamVersionConflictError, UnavailableError } from '../shared/errors';
import type { EventMetadata, EventOf, RecordedEvent, TaskEvent } from '../shared/events';
import { CURRENT_SCHEMA_VERSION, isEventOf, streams } from '../shared/events';
import type { TaskConsumer, TaskDelivery, TaskQueue } from '../shared/taskqueue/port';
import type { CopyDependencies, CopyJob, CopyOutcome, CopyProgress } from './copy/copy-job';
import { copyToExistingEnvironment } from './copy/copy-to-existing';
import { copyToNewEnvironment } from './copy/copy-to-new';
import { resolveCopy } from './copy/resolve';
import { StaleTaskAttemptError, TaskFinishedError, TaskGaveUpError, toTaskError } from '../shared/domain/task/errors';
import type { CopyRequest, TaskCommand, TaskState } from '../shared/domain/task/decider';
import { activeTraceCarrier, inSpanContinuing, type TraceCarrier } from '../shared/tracing/spans';

export const COPY_MESSAGE_TYPE = 'environment-copy';

export interface WorkerOptions {
  /** Consumer group of the task service. */
  group: string;
  /** Tasks handled at once by this process. */
  concurrency: number;
  /**
   * Attempts in a row that may start and record no progress before the task is
   * failed (a crash loop, a poison task). An attempt that records progress resets
   * the count, so restarts during a long copy never give it up.
   */
  maxAttempts: number;
  /** Least time between two progress events of one task. */
  progressIntervalMs: number;
}

export interface WorkerDependencies extends CopyDependencies {
  queue: TaskQueue;
  tasks: CommandPipeline<TaskCommand, TaskState, TaskEvent>;
}

/**
 * The task service's consumer: takes copy commands from the queue and runs
 * each task's life on its stream: an attempt starts, the copy runs (reporting
 * progress), and the task succeeds or fails. The message is acknowledged only
 * after the outcome is in the log.
 *
 * - Expected failures (source not found, duplicate key, conflicts) fail the task.
 * - Unexpected ones leave the message unacknowledged: it is delivered again and
 *   the copy resumes where it stopped. After `maxAttempts` attempts in a row
 *   that made no progress, the task fails, so no task stays `processing`
 *   forever (an attempt that progresses brings the copy closer to its end).
 * - An attempt that another worker took over (a newer attempt started) stops
 *   at its next report and lets the newer one finish.
 */
export class CopyTaskWorker {
  private consumer: TaskConsumer | null = null;
  private readonly shutdown = new AbortController();

  constructor(
    private readonly deps: WorkerDependencies,
    private readonly options: WorkerOptions,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.consumer = await this.deps.queue.consume({ group: this.options.group, concurrency: this.options.concurrency }, (d) =>
      this.onDelivery(d),
    );
  }

  async stop(): Promise<void> {
    this.shutdown.abort();
    await this.consumer?.stop();
    this.consumer = null;
  }

  private async onDelivery(delivery: TaskDelivery): Promise<void> {
    if (delivery.message.type !== COPY_MESSAGE_TYPE) {
      this.logger.warn({ type: delivery.message.type }, 'ignoring a task message of an unknown type');
      await delivery.ack();
      return;
    }
    const { taskId: named } = delivery.message.body;
    const taskId = typeof named === 'string' ? named : delivery.message.key;
    try {
      await inSpanContinuing(
        'copy task',
        delivery.message.body as TraceCarrier,
        { 'rebac.task_id': taskId, 'rebac.delivery': delivery.attempt },
        () => this.handle(taskId),
      );
    } catch (error) {
      if (this.shutdown.signal.aborted) throw error;
      // A version conflict here is another attempt of the same task racing this one: expected, and resolved by the redelivery.
      const level = error instanceof StreamVersionConflictError ? 'warn' : 'error';
      this.logger[level]({ err: error, taskId, delivery: delivery.attempt }, 'copy task attempt failed; it will be delivered again');
      throw error;
    }
    await delivery.ack();
  }

  /** Runs (or resumes, or closes) one task. Resolves once the task's state for this delivery is in the log. */
  async handle(taskId: string): Promise<void> {
    const stream = streams.task(taskId);
    const [requested] = await this.deps.eventStore.readStream(stream, 0, 1);
    if (!requested || !isEventOf('task', requested) || requested.type !== 'EnvironmentCopyRequested') {
      this.logger.warn({ taskId }, 'no copy request in the task stream; nothing to do');
      return;
    }
    const state = await this.deps.tasks.currentState(stream);
    if (state.finished) return;
    if (state.stalledAttempts >= this.options.maxAttempts) {
      const error = new TaskGaveUpError(
        `The copy was started ${state.stalledAttempts} times in a row without making progress and was given up; the service logs of task '${taskId}' tell why. Start a new copy.`,
      );
      await this.command(stream, { type: 'Fail', taskId, attempt: state.attempt, error: toTaskError(error) });
      return;
    }

    const started = (await this.command(stream, { type: 'StartAttempt', taskId }))?.find((e) => e.type === 'TaskStarted');
    if (!started) return;
    const attempt = started.data.attempt;
    this.logger.info({ taskId, attempt }, 'copy task attempt started');
    let outcome: CopyOutcome;
    const metrics = this.deps.metrics;
    if (metrics) metrics.running++;
    try {
      outcome = await this.copy(requested, attempt);
    } catch (error) {
      if (error instanceof StaleTaskAttemptError || error instanceof TaskFinishedError) return;
      if (!(error instanceof DomainError) || error instanceof StreamVersionConflictError || error instanceof UnavailableError) throw error;
      this.logger.info({ taskId, attempt, reason: error.message }, 'copy task failed');
      await this.command(stream, { type: 'Fail', taskId, attempt, error: toTaskError(error) });
      return;
    } finally {
      if (metrics) metrics.running--;
    }
    await this.command(stream, { type: 'Succeed', taskId, attempt, ...outcome });
    this.logger.info({ taskId, attempt, ...outcome }, 'copy task succeeded');
  }

  private async copy(requested: RecordedEvent<EventOf<'EnvironmentCopyRequested'>>, attempt: number): Promise<CopyOutcome> {
    const request: CopyRequest = requested.data;
    const stream = streams.task(request.taskId);
    const { environmentId, bound } = await resolveCopy(this.deps.eventStore, request, requested.position);
    let lastReport = 0;
    const trace = activeTraceCarrier();
    const job: CopyJob = {
      request,
      sourceEnvironmentId: environmentId,
      bound,
      origin: {
        taskId: request.taskId,
        actor: requested.metadata.actor,
        requestId: requested.metadata.requestId,
        timestamp: requested.metadata.timestamp,
        ...(trace ? { trace } : {}),
      },
      signal: this.shutdown.signal,
      progress: async (progress: CopyProgress) => {
        if (Date.now() - lastReport < this.options.progressIntervalMs) return;
        lastReport = Date.now();
        await this.deps.tasks.execute(
          stream,
          { type: 'RecordProgress', taskId: request.taskId, attempt, ...progress },
          this.metadata(request.taskId),
        );
      },
    };
    return request.target.kind === 'new' ? copyToNewEnvironment(this.deps, job) : copyToExistingEnvironment(this.deps, job);
  }

  /** Runs a task command; null when the task finished or moved to a newer attempt meanwhile (nothing left to do here). */
  private async command(stream: string, command: TaskCommand): Promise<TaskEvent[] | null> {
    try {
      return (
        await this.deps.tasks.execute(
          stream,
          command,
          this.metadata(command.type === 'RequestEnvironmentCopy' ? command.request.taskId : command.taskId),
        )
      ).events;
    } catch (error) {
      if (error instanceof StaleTaskAttemptError || error instanceof TaskFinishedError) return null;
      throw error;
    }
  }

  private metadata(taskId: string): EventMetadata {
    return {
      actor: null,
      correlationId: taskId,
      timestamp: new Date().toISOString(),
      schemaVersion: CURRENT_SCHEMA_VERSION,
      ...activeTraceCarrier(),
    };
  }
}
