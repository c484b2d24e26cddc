import type { ReadModels } from '../../shared/read-models/read-models';
import { tupleEdges } from '../../shared/read-models/grants/fact-finders';
import type { GrantStore } from '../../shared/read-stores/grants/port';
import { storedBeneath } from '../../shared/read-models/in-force';
import { EffectiveGrants } from './effective-grants';
import { authorizedUsers, type AuthorizedUsersPage, type AuthorizedUsersRequest } from './authorized-users';
import { check, type CheckResult } from './check';
import { GrantsAsOf } from './grants-as-of';
import { cachedRolePermissions, storedRolePermissions, type RolePermissions } from './role-permissions';
import type { QueryDeps, CheckRequest, DenialEnds, GrantReads } from './types';
import { cachedAbacPolicies, storedAbacPolicies, type AbacPolicies } from './set-rules';
import { userPermissions, type UserPermissionsPage, type UserPermissionsRequest } from './user-permissions';

/** The read side of derived grants, as the PDP endpoints use it. Reads only; never waits for the projection itself. */
export class GrantQueries {
  private readonly deps: QueryDeps;

  constructor(
    rm: ReadModels,
    grants: GrantReads,
    roles: RolePermissions = storedRolePermissions(rm),
    abac: AbacPolicies = storedAbacPolicies(rm),
    denials?: DenialEnds,
  ) {
    this.deps = { rm, grants, roles, abac, ...(denials === undefined ? {} : { denials }) };
  }

  /**
   * The queries over the current read models: the stored grants, with the grants of sink roles they
   * imply (EffectiveGrants), those in force at `instant` (the service's clock; `rm` should be a view
   * at the same instant: shared/read-models/in-force.ts). The assignments beneath the view tell
   * where a direct role that ended still holds a guarded role back in the stored grants.
   */
  static overStored(rm: ReadModels, store: GrantStore, instant: () => number = Date.now): GrantQueries {
    const grants = new EffectiveGrants(store, tupleEdges(rm.tuples), undefined, instant, storedBeneath(rm).assignments);
    return new GrantQueries(rm, { grants }, undefined, undefined, grants);
  }

  /**
   * The same queries over other read models that keep no derived grants (the
   * read models as of a past position): grants are derived on the fly from
   * their assignments, tuples and role definitions (GrantsAsOf). For one
   * request: what it derives is kept until it is dropped.
   */
  static over(rm: ReadModels): GrantQueries {
    const grants = new GrantsAsOf(rm);
    return new GrantQueries(rm, { grants }, grants.rolePermissions());
  }

  /** The same queries, with role definitions kept while the read models stay at `position` (see ReadCache). */
  withRolesCachedPer(position: () => number): GrantQueries {
    const { rm, grants, denials } = this.deps;
    return new GrantQueries(
      rm,
      grants,
      cachedRolePermissions(storedRolePermissions(rm), position),
      cachedAbacPolicies(storedAbacPolicies(rm), position),
      denials,
    );
  }

  check(environmentId: string, request: CheckRequest, explain = false): Promise<CheckResult> {
    return check(this.deps, environmentId, request, explain);
  }

  /** Whether some set rule (ABAC) grants `type:action`: then a check may be allowed where the user holds no role. */
  async setRulesGrant(environmentId: string, permission: string): Promise<boolean> {
    return ((await this.deps.abac.of(environmentId)).rules.get(permission)?.length ?? 0) > 0;
  }

  userPermissions(environmentId: string, request: UserPermissionsRequest): Promise<UserPermissionsPage> {
    return userPermissions(this.deps, environmentId, request);
  }

  authorizedUsers(environmentId: string, request: AuthorizedUsersRequest): Promise<AuthorizedUsersPage> {
    return authorizedUsers(this.deps, environmentId, request);
  }
}
