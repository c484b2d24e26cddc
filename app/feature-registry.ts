import { auditLogProjection } from '../projection-service/audit/audit-projection';
import { grantsProjection } from '../projection-service/grants/projection';
import type { GrantStats } from '../projection-service/grants/stats';
import { historyProjection } from '../projection-service/history/projection';
import type { Projection } from '../shared/read-models/projection';
import type { ReadModels } from '../shared/read-models/read-models';
import { TaskCompletion } from '../shared/read-models/task-completion';
import { readStoresOf } from '../shared/read-stores/port';
import { taskProjection } from '../task-service/task-projection';

/**
 * The shipped features, by name, in the order the service runs them: the one list of them, and
 * of their projections. app/features.ts builds each from its module in this order; the projection
 * thread (app/projection-thread-worker.ts) builds their projections by name from here, without
 * loading the features' routes, whose modules would cost that thread's heap for nothing; the
 * check workers take those marked as theirs.
 */
export const featureRegistry = {
  'environment-copy': {
    projections: (rm: ReadModels, completion = new TaskCompletion()): Projection[] => [
      taskProjection(rm, readStoresOf(rm.store).tasks, completion),
    ],
  },
  'derived-grants': {
    projections: (rm: ReadModels, stats?: GrantStats): Projection[] => [grantsProjection(rm, { stats })],
    servedByCheckWorkers: true,
  },
  'bulk-facts': {},
  'time-travel': { projections: (rm: ReadModels): Projection[] => [historyProjection(rm)] },
  'audit-log': { projections: (rm: ReadModels): Projection[] => [auditLogProjection(rm.store)] },
  assertions: {},
  'decision-log': {},
  'expiring-access': {},
} as const satisfies Record<string, RegisteredFeature>;

/** What the registry says of a shipped feature. */
interface RegisteredFeature {
  /** Its projections (none when absent), which its Feature's `projections` builds too. */
  projections?: (rm: ReadModels) => Projection[];
  /** The check workers (app/check-worker.ts) serve its routes. */
  servedByCheckWorkers?: boolean;
}

export type FeatureName = keyof typeof featureRegistry;

/** The shipped features' names, in the order the service runs them. */
export const featureNames = Object.keys(featureRegistry) as FeatureName[];

const registered = (name: FeatureName): RegisteredFeature => featureRegistry[name];

/** Whether `name` is a shipped feature with projections (one the projection thread can build by name). */
export function hasRegisteredProjections(name: string): name is FeatureName {
  return Object.hasOwn(featureRegistry, name) && registered(name as FeatureName).projections !== undefined;
}

/** The projections of the shipped feature `name`, as its Feature builds them by default. */
export function registeredProjections(name: FeatureName, readModels: ReadModels): Projection[] {
  return registered(name).projections?.(readModels) ?? [];
}

/** The names of the features whose routes the check workers serve. */
export const checkWorkerFeatureNames: FeatureName[] = featureNames.filter((name) => registered(name).servedByCheckWorkers === true);
