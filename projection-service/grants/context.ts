import type { Collection } from '../../shared/docstore/port';
import type { AssignmentDoc } from '../../shared/read-models/read-models';
import type { Finder } from '../../shared/read-models/grants/fact-finders';
import type { GrantStore } from '../../shared/read-stores/grants/port';
import type { EdgeDoc, GrantDoc } from '../../shared/read-models/grants/model';
import type { RuleIndex } from '../../shared/read-models/grants/rule-index';
import type { GrantStats } from './stats';
import type { Yielder } from '../yielder';

/** What the derivation steps of one event work with. */
export interface GrantContext {
  environmentId: string;
  /** The event's timestamp: created_at/updated_at of the grants it writes. */
  at: string;
  rules: RuleIndex;
  /** The grants' store, on the runner's batch transaction (writes reported to BatchHolders). */
  grants: GrantStore;
  /** The facts read model's tuples, as edges (the projection runs after it, so they are current). */
  edges: Finder<EdgeDoc>;
  /** The facts read model's instances, only their keys (to walk the instances of a type). */
  instanceKeys: Finder<{ id: string; key: string }>;
  /** The facts read model's assignments (the projection runs after it, so they are current). */
  assignments: Collection<AssignmentDoc>;
  stats: GrantStats;
  yielder: Yielder;
  /** The tuples whose subject is `instance` when read before the batch and still current (see PrefetchedEdges); else undefined. */
  prefetchedEdges(instance: string): EdgeDoc[] | undefined;
  /** The grants on `instance` as read before the batch and untouched since (see BatchHolders); else undefined. */
  holdersBefore(instance: string): GrantDoc[] | undefined;
  /** Grants this event removed: a grant derived again keeps its original created_at. */
  previous: Map<string, GrantDoc>;
}
