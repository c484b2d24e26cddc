import type { Collection as MongoCollection, Db } from 'mongodb';
import type { EnvironmentDoc } from '../../read-models/read-models';
import type { TaskError } from '../../events/task-events';
import type { TaskCounts, TaskDoc, TaskStore } from './port';
import { recordOf, taskOfRecord, type TaskRecord } from './rows';

/** A task as MongoDB keeps it: the record every engine stores (rows.ts), keyed by `_id`. */
type StoredTask = Omit<TaskRecord, 'task_id'> & { _id: string };

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
  const { task_id, ...fields } = recordOf(task);
  return { _id: task_id, ...fields };
}

function taskOfStored({ _id, ...fields }: StoredTask): TaskDoc {
  return taskOfRecord({ task_id: _id, ...fields });
}
