import { auditLogProjection } from '../projection-service/audit/audit-projection';
import { grantsProjection } from '../projection-service/grants/projection';
import type { GrantStats } from '../projection-service/grants/stats';
import { historyProjection } from '../projection-service/history/projection';
import type { Projection } from '../shared/read-models/projection';
import type { ReadModels } from '../shared/read-models/read-models';
import { TaskCompletion } from '../shared/read-models/task-completion';
import { taskCollection } from '../shared/read-models/tasks';
import { taskProjection } from '../task-service/task-projection';

/**
 * The projections of the shipped features, by feature name: what each feature's `projections`
 * builds, and what the projection thread builds (app/projection-thread-worker.ts) without loading
 * the features' routes, whose modules would cost that thread's heap for nothing.
 */
export const shippedProjections = {
  'environment-copy': (rm: ReadModels, completion = new TaskCompletion()): Projection[] => [
    taskProjection(rm, taskCollection(rm.store), completion),
  ],
  'derived-grants': (rm: ReadModels, stats?: GrantStats): Projection[] => [grantsProjection(rm, { stats })],
  'time-travel': (rm: ReadModels): Projection[] => [historyProjection(rm)],
  'audit-log': (rm: ReadModels): Projection[] => [auditLogProjection(rm.store)],
} as const;

export type ShippedFeatureName = keyof typeof shippedProjections;

export const isShippedFeature = (name: string): name is ShippedFeatureName => Object.hasOwn(shippedProjections, name);
