import type { Collection } from '../../shared/docstore/port';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import type { ReadModels } from '../../shared/read-models/read-models';
import type { RolePermissions } from './role-permissions';
import type { AbacInputs, AbacPolicies } from './set-rules';

/** What the grant queries read: the core read models (roles, instances, assignments) and the derived grants. */
export interface QueryDeps {
  rm: ReadModels;
  /** The derived grants: materialised (the current read models), or derived on the fly (as of a past position, GrantsAsOf). */
  grants: GrantReads;
  roles: RolePermissions;
  /** Set rules and condition sets (ABAC), evaluated at check time. */
  abac: AbacPolicies;
  /** How long a deny holds at the latest (CheckResult.until); absent where nothing is cached (the past). */
  denials?: DenialEnds;
}

/** The grants as the queries read them: a read-only collection (EffectiveGrants over the grants' store, or GrantsAsOf). */
export interface GrantReads {
  grants: Collection<GrantDoc>;
}

/** When ends may undo a deny: only a guarded role's (`no_direct_roles_on_object`) comes back at an end (EffectiveGrants.denyHoldsUntil). */
export interface DenialEnds {
  denyHoldsUntil(environmentId: string, user: string, instance: string, roles: string[]): Promise<string | undefined>;
}

/** A resource as a check names it. `key` null: the resource type as a whole. */
export interface ResourceRef {
  type: string;
  key: string | null;
  /** The tenant the caller names; an existing instance's own tenant takes precedence. */
  tenant: string | null;
}

export interface CheckRequest {
  user: string;
  action: string;
  resource: ResourceRef;
  /** Attributes sent with the check and its context, for set rules (ABAC); absent: the stored attributes alone. */
  abac?: AbacInputs;
}

/** The tenant Permit's SDK fills in when the caller names none. */
export const DEFAULT_TENANT = 'default';

export const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** `$in` lists of at most 500 (as the projection reads): few distinct statements, each well under SQLite's variable limit. */
export function chunks<T>(values: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}
