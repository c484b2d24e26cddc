import { copyRoutes } from '../../command-service/routes/copy';
import type { Feature, FeatureContext } from '../feature';
import { runNow } from '../lease';
import { CommandPipeline } from '../../shared/cqrs/command-pipeline';
import { createTaskQueue } from '../../shared/taskqueue/engines';
import type { TaskQueue } from '../../shared/taskqueue/port';
import { TaskRelay } from '../../task-service/relay';
import { TaskCompletion } from '../../shared/read-models/task-completion';
import type { TaskEvent } from '../../shared/events';
import { taskDecider, type TaskCommand, type TaskState } from '../../shared/domain/task/decider';
import { featureRegistry } from '../feature-registry';
import { readStoresOf } from '../../shared/read-stores/port';
import { CopyTaskWorker, type WorkerOptions } from '../../task-service/worker';

export interface EnvironmentCopyOptions {
  /** A queue to use instead of the configured engine (tests). It is closed with the feature. */
  queue?: TaskQueue;
  worker?: Partial<WorkerOptions>;
  /** Source events per read and per target append (default COPY_BATCH_EVENTS). */
  batchSize?: number;
}

/**
 * Small enough that a batch, which lives across the append's await, dies in V8's
 * young generation (larger batches were promoted and the copy spent its time in
 * GC), large enough that the commit per batch overlaps with reading the next one.
 * Measured in docs/bench-history/design-choices.md.
 */
const COPY_BATCH_EVENTS = 1000;

/** How often the API process of a distributed deployment looks for held requests' task outcomes. */
const TASK_POLL_MS = 100;

const DEFAULT_WORKER: WorkerOptions = { group: 'task-service', concurrency: 4, maxAttempts: 5, progressIntervalMs: 500 };

/**
 * Environment copy as a background task (seed endpoints 8 and 9), wired into
 * the embedded service: the task read model's projection, the HTTP routes, and
 * the task service (relay from the log to the queue, and the copy worker).
 */
export function environmentCopyFeature(options: EnvironmentCopyOptions = {}): Feature & { completion: TaskCompletion } {
  const completion = new TaskCompletion();
  // One pipeline for the task streams, shared by the routes (requests) and the worker (attempts, outcomes).
  let taskCommands: CommandPipeline<TaskCommand, TaskState, TaskEvent> | null = null;
  const commandsFor = (context: FeatureContext) =>
    (taskCommands ??= new CommandPipeline(context.eventStore, taskDecider, context.logger.child({ component: 'task-commands' })));

  return {
    name: 'environment-copy',
    completion,
    projections: (rm) => featureRegistry['environment-copy'].projections(rm, completion),
    routes: (context) =>
      copyRoutes({
        tasks: readStoresOf(context.documentStore).tasks,
        completion,
        taskCommands: commandsFor(context),
        eventStore: context.eventStore,
      }),
    followReadModels(context) {
      // Held `wait` requests learn their task's outcome from the task read model (one query per process).
      const poller = completion.pollFrom(readStoresOf(context.documentStore).tasks, TASK_POLL_MS);
      return { stop: async () => poller.stop() };
    },
    async startWorkers(context) {
      const logger = context.logger.child({ component: 'task-service' });
      const queue = options.queue ?? (await createTaskQueue(context.config));
      const worker = new CopyTaskWorker(
        {
          eventStore: context.eventStore,
          orgCommands: context.services.orgCommands,
          logger,
          batchSize: options.batchSize ?? COPY_BATCH_EVENTS,
          queue,
          tasks: commandsFor(context),
          metrics: context.services.metrics.copies,
        },
        { ...DEFAULT_WORKER, ...options.worker },
        logger,
      );
      await worker.start();
      const { tasks } = readStoresOf(context.documentStore);
      context.services.metrics.countOpenTasks(() => tasks.countProcessing());
      // One relay among the task-service replicas (the embedded process runs it at once).
      const relay = await (context.runExclusively ?? runNow)('task-relay', async () => {
        // A child of the root logger: under the task-service logger, its lines would carry `component` twice.
        const r = new TaskRelay(context.eventStore, context.documentStore, queue, context.logger.child({ component: 'task-relay' }));
        await r.start();
        return r;
      });
      return {
        async stop() {
          await relay.stop();
          await worker.stop();
          await queue.close();
        },
      };
    },
  };
}
