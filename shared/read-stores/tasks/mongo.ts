import type { Collection as MongoCollection, Db } from 'mongodb';
import type { EnvironmentDoc } from '../../read-models/read-models';
import type { TaskError } from '../../events/task-events';
import type { TaskCounts, TaskDoc, TaskStore } from './port';

/**
 * A task as MongoDB keeps it: `_id` its id, its scalar fields at the top level, and the fields
 * that hold structures (scope, as_of, result, error) as their JSON text, so that any key a result
 * holds (an environment's settings may hold `.` or `$`) is kept as it is, on every server.
 */
interface StoredTask {
  _id: string;
  type: TaskDoc['type'];
  status: TaskDoc['status'];
  organization_id: string;
  project_id: string;
  source_environment: string;
  source_environment_id: string | null;
  target_kind: TaskDoc['target_kind'];
  target_environment_id: string | null;
  scope: string;
  as_of: string;
  requested_at_position: number;
  attempts: number;
  source_events_total: number;
  source_events_read: number;
  events_copied: number;
  result: string;
  error: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** `rm_` like every read-model collection: a rebuild empties it too. */
const COLLECTION = 'rm_tasks';
/** The index on the status that the count of processing tasks reads. */
const STATUS_INDEX = 'status';

/**
 * The tasks' read store on MongoDB (or FerretDB): the collection `rm_tasks`, by `_id`, with an
 * index on `status`. MongoDB has no transactions here (the document store's are not atomic), so
 * the updates read the task and set what changes; the task projection is their only writer.
 */
export class MongoTaskStore implements TaskStore {
  private readonly tasks: MongoCollection<StoredTask>;
  private indexed: Promise<void> | null = null;

  constructor(db: Db) {
    this.tasks = db.collection<StoredTask>(COLLECTION);
  }

  async get(taskId: string): Promise<TaskDoc | null> {
    const stored = await this.tasks.findOne({ _id: taskId });
    return stored ? taskOfStored(stored) : null;
  }

  async finishedAmong(taskIds: string[]): Promise<string[]> {
    if (taskIds.length === 0) return [];
    const found = await this.tasks.find({ _id: { $in: taskIds }, status: { $ne: 'processing' } }, { projection: { _id: 1 } }).toArray();
    return found.map((task) => task._id);
  }

  async countProcessing(): Promise<number> {
    await this.ready();
    return this.tasks.countDocuments({ status: 'processing' });
  }

  async requested(task: TaskDoc): Promise<void> {
    await this.ready();
    await this.tasks.replaceOne({ _id: task.task_id }, storedOf(task), { upsert: true });
  }

  async started(taskId: string, attempt: number, at: string): Promise<void> {
    const stored = await this.tasks.findOne({ _id: taskId }, { projection: { attempts: 1, started_at: 1 } });
    if (!stored) return;
    await this.set(taskId, { attempts: Math.max(stored.attempts, attempt), started_at: stored.started_at ?? at, updated_at: at });
  }

  progressed(taskId: string, counts: TaskCounts, at: string): Promise<void> {
    return this.set(taskId, { source_events_read: counts.sourceEventsRead, events_copied: counts.eventsCopied, updated_at: at });
  }

  succeeded(taskId: string, result: EnvironmentDoc | null, counts: TaskCounts, at: string): Promise<void> {
    return this.set(taskId, {
      status: 'success',
      result: JSON.stringify(result),
      error: 'null',
      source_events_read: counts.sourceEventsRead,
      events_copied: counts.eventsCopied,
      finished_at: at,
      updated_at: at,
    });
  }

  failed(taskId: string, error: TaskError, at: string): Promise<void> {
    return this.set(taskId, { status: 'failure', result: 'null', error: JSON.stringify(error), finished_at: at, updated_at: at });
  }

  /** Sets `fields` of a stored task (a task not stored stays so). */
  private async set(taskId: string, fields: Partial<StoredTask>): Promise<void> {
    await this.tasks.updateOne({ _id: taskId }, { $set: fields });
  }

  /**
   * The status index, made once on first use. FerretDB 1.x drops the connection on two concurrent
   * `createIndexes` for one collection (several processes starting at once): a failed attempt is
   * retried after looking again at what exists.
   */
  private ready(): Promise<void> {
    this.indexed ??= (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          const existing = await this.tasks
            .listIndexes()
            .toArray()
            .catch(() => []);
          if (!existing.some((index: { name?: unknown }) => index.name === STATUS_INDEX)) {
            await this.tasks.createIndex({ status: 1 }, { name: STATUS_INDEX });
          }
          return;
        } catch (error) {
          if (attempt >= 5) throw error;
          await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
        }
      }
    })().catch((error: unknown) => {
      this.indexed = null;
      throw error;
    });
    return this.indexed;
  }
}

function storedOf(task: TaskDoc): StoredTask {
  return {
    _id: task.task_id,
    type: task.type,
    status: task.status,
    organization_id: task.organization_id,
    project_id: task.project_id,
    source_environment: task.source_environment,
    source_environment_id: task.source_environment_id,
    target_kind: task.target_kind,
    target_environment_id: task.target_environment_id,
    scope: JSON.stringify(task.scope),
    as_of: JSON.stringify(task.as_of),
    requested_at_position: task.requested_at_position,
    attempts: task.attempts,
    source_events_total: task.progress.source_events_total,
    source_events_read: task.progress.source_events_read,
    events_copied: task.progress.events_copied,
    result: JSON.stringify(task.result),
    error: JSON.stringify(task.error),
    created_at: task.created_at,
    updated_at: task.updated_at,
    started_at: task.started_at,
    finished_at: task.finished_at,
  };
}

function taskOfStored(stored: StoredTask): TaskDoc {
  return {
    id: stored._id,
    task_id: stored._id,
    type: stored.type,
    status: stored.status,
    organization_id: stored.organization_id,
    project_id: stored.project_id,
    source_environment: stored.source_environment,
    source_environment_id: stored.source_environment_id ?? null,
    target_kind: stored.target_kind,
    target_environment_id: stored.target_environment_id ?? null,
    scope: JSON.parse(stored.scope) as TaskDoc['scope'],
    as_of: JSON.parse(stored.as_of) as TaskDoc['as_of'],
    requested_at_position: Number(stored.requested_at_position),
    attempts: Number(stored.attempts),
    progress: {
      source_events_total: Number(stored.source_events_total),
      source_events_read: Number(stored.source_events_read),
      events_copied: Number(stored.events_copied),
    },
    result: JSON.parse(stored.result) as EnvironmentDoc | null,
    error: JSON.parse(stored.error) as TaskError | null,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
    started_at: stored.started_at ?? null,
    finished_at: stored.finished_at ?? null,
  };
}
