import type { EnvironmentDoc } from './read-models';
import type { Collection, CollectionSpec, DocumentStore } from '../docstore/port';
import type { CopyAsOf, TaskError } from '../events/task-events';

/** The task read model: one document per background task, built from its stream by the task projection. */
export interface TaskDoc {
  id: string;
  task_id: string;
  type: 'environment_copy';
  status: 'processing' | 'success' | 'failure';
  organization_id: string;
  project_id: string;
  /** The source as the client named it (key or id), and its id when it resolved. */
  source_environment: string;
  source_environment_id: string | null;
  target_kind: 'new' | 'existing';
  /** The new environment's id (decided at request time), or the existing target's id. */
  target_environment_id: string | null;
  scope: { facts: boolean };
  as_of: CopyAsOf;
  /** Global log position of the request: the source is copied as of this position (or `as_of`). */
  requested_at_position: number;
  attempts: number;
  progress: { source_events_total: number; source_events_read: number; events_copied: number };
  /** On success: the environment, as the environments read model had it when the task finished. */
  result: EnvironmentDoc | null;
  error: TaskError | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export const taskCollectionSpec: CollectionSpec = {
  name: 'background_tasks',
  fields: ['project_id', 'status'],
  indexes: [['project_id'], ['status']],
};

export const taskCollection = (store: DocumentStore): Collection<TaskDoc> => store.collection<TaskDoc>(taskCollectionSpec);
