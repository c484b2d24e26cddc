import { inheritedPermissions } from '../../shared/domain/env/role-hierarchy';
import type { AssignmentDoc, InstanceDoc, RoleDoc } from '../../shared/read-models/read-models';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import { derivationChain, type ChainStep } from './explain';
import { evaluateSetRules, type SetRuleTrace } from './set-rules';
import { DEFAULT_TENANT, type CheckRequest, type QueryDeps } from './types';

export type GrantedBy =
  | { kind: 'resource_role'; role: string; resource_instance: string; permissions: string[]; chain: ChainStep[] }
  | { kind: 'tenant_role'; role: string; tenant: string; permission: string; assignment_id: string }
  | { kind: 'set_rule'; set_rule: string; user_set: string; permission: string; resource_set: string };

export interface Explanation {
  decision: 'allow' | 'deny';
  summary: string;
  resource: { type: string; key: string | null; tenant: string; instance_found: boolean };
  /** Every role that permits the action, with how the user holds it. Empty on deny. */
  granted_by: GrantedBy[];
  /** On deny: the roles the user does hold here, none of which permits the action. */
  roles_held: Array<{ kind: 'resource_role' | 'tenant_role'; role: string; permissions: string[] }>;
  /** Every set rule granting the permission, as evaluated: which sets matched, and each condition's outcome. */
  set_rules: SetRuleTrace[];
}

export interface CheckResult {
  allow: boolean;
  /**
   * The answer holds until this instant at the latest; a cache keeps it no later. An allow: the
   * first end among the grants and assignments it was decided from (docs/expiring-access.md). A
   * deny: ends only take access away, but for one: the end of the user's last direct role on the
   * instance gives back a guarded role (`no_direct_roles_on_object`) that may permit the action,
   * and a deny holds until then (DenialEnds). Absent when nothing the answer came from ends.
   */
  until?: string;
  explanation?: Explanation;
}

/**
 * Decides one check with a few indexed lookups:
 * - the roles the user holds on the instance (direct or derived, from the
 *   derived-grants read model) whose permissions include the action;
 * - the tenant-level roles assigned to the user in the instance's tenant whose
 *   permissions include `type:action`.
 * An unknown user, instance, type or action is simply not granted anything.
 */
export async function check(deps: QueryDeps, environmentId: string, request: CheckRequest, explain: boolean): Promise<CheckResult> {
  // Roles and relationships first (their reads are indexed and cheap); set rules only when they deny.
  if (!explain) {
    const decided = await decide(deps, environmentId, request);
    if (decided.allow) return decided;
    const abac = await setRules(deps, environmentId, request, false);
    return abac.allow ? { allow: true, ...(abac.until === undefined ? {} : { until: abac.until }) } : decided;
  }
  const { rm } = deps;
  const { type, key } = request.resource;
  const instance = key === null ? null : await rm.instances.findOne({ environment_id: environmentId, resource: type, key });
  // An existing instance's own tenant decides (a request cannot borrow another tenant's roles for it);
  // an instance we do not know is taken to be in the tenant the caller names, as for a type-level check.
  const tenant = instance?.tenant ?? request.resource.tenant ?? DEFAULT_TENANT;

  const grants = instance
    ? await deps.grants.grants.find({ environment_id: environmentId, user: request.user, instance: `${type}:${key}` })
    : [];
  const resourceRoles =
    grants.length > 0 ? inheritedPermissions(await rm.resourceRoles.find({ environment_id: environmentId, resource: type })) : [];
  const permitting = (g: GrantDoc) => resourceRoles.some((r) => r.key === g.role && r.permissions.includes(request.action));
  if (!explain && grants.some(permitting)) return { allow: true };

  const permission = `${type}:${request.action}`;
  const assignments = await rm.assignments.find({ environment_id: environmentId, user: request.user, tenant, resource_instance: null });
  const tenantRoles = assignments.length > 0 ? inheritedPermissions(await rm.roles.find({ environment_id: environmentId })) : [];
  const tenantPermitting = (a: AssignmentDoc) => tenantRoles.some((r) => r.key === a.role && r.permissions.includes(permission));
  const abac = await setRules(deps, environmentId, request, true);
  const allow = grants.some(permitting) || assignments.some(tenantPermitting) || abac.allow;
  if (!explain) return { allow };

  return {
    allow,
    explanation: await explanationOf(deps, request, instance, tenant, {
      grants,
      resourceRoles,
      permitting,
      assignments,
      tenantRoles,
      tenantPermitting,
      permission,
      allow,
      setRules: abac.traces,
    }),
  };
}

/**
 * The decision alone, with as few reads as the answer needs: the user's roles
 * on the instance first (derived grants exist only for existing instances, so
 * no instance lookup), then their tenant-level assignments, and the instance's
 * tenant only if they hold some. Reads only the columns it compares (no JSON),
 * and role permissions through `deps.roles` (cached per read-model position).
 */
async function decide(deps: QueryDeps, environmentId: string, request: CheckRequest): Promise<Decided> {
  const { type, key } = request.resource;
  // The roles that would permit the action here: a deny holds until one of them may be given back (denied).
  let permittingHere: string[] = [];
  const denied = async (): Promise<Decided> => {
    if (key === null || permittingHere.length === 0 || deps.denials === undefined) return { allow: false };
    const until = await deps.denials.denyHoldsUntil(environmentId, request.user, `${type}:${key}`, permittingHere);
    return until === undefined ? { allow: false } : { allow: false, until };
  };
  if (key !== null) {
    // Only the roles that permit the action: one of them is enough, and a role implied through a
    // tuple (a sink role, docs/grants.md) is looked for only when no stored one is held.
    const permissions = await deps.roles.ofResource(environmentId, type);
    const permitting = [...permissions].filter(([, actions]) => actions.has(request.action)).map(([role]) => role);
    permittingHere = permitting;
    if (permitting.length > 0) {
      const held = await deps.grants.grants.find(
        { environment_id: environmentId, user: request.user, instance: `${type}:${key}`, role: { $in: permitting } },
        { fields: ['role', 'expires_at'], limit: 1 },
      );
      if (held.length > 0) return allowedUntil(held[0]!.expires_at);
    }
  }
  const tenantAssignments = await deps.rm.assignments.find(
    { environment_id: environmentId, user: request.user, resource_instance: null },
    { fields: ['role', 'tenant', 'expires_at'] },
  );
  if (tenantAssignments.length === 0) return denied();
  const instance = key === null ? null : await deps.rm.instances.findOne({ environment_id: environmentId, resource: type, key });
  const tenant = instance?.tenant ?? request.resource.tenant ?? DEFAULT_TENANT;
  const permission = `${type}:${request.action}`;
  const topLevel = await deps.roles.topLevel(environmentId);
  const permits = tenantAssignments.find((a) => a.tenant === tenant && topLevel.get(a.role)?.has(permission));
  return permits ? allowedUntil(permits.expires_at) : denied();
}

/** A decision, and the instant it holds until (CheckResult.until). */
type Decided = Pick<CheckResult, 'allow' | 'until'>;

const allowedUntil = (end: string | null | undefined): Decided =>
  end === null || end === undefined ? { allow: true } : { allow: true, until: end };

/** The set rules (ABAC) for one check: the resource's tenant and attributes are found from the stored instance. */
function setRules(deps: QueryDeps, environmentId: string, request: CheckRequest, explain: boolean) {
  const { type, key, tenant } = request.resource;
  const subject = { environmentId, user: request.user, type, key, tenant, inputs: request.abac ?? {} };
  return evaluateSetRules(deps.rm, deps.abac, subject, request.action, explain);
}

interface Evidence {
  grants: GrantDoc[];
  resourceRoles: RoleDoc[];
  permitting: (g: GrantDoc) => boolean;
  assignments: AssignmentDoc[];
  tenantRoles: RoleDoc[];
  tenantPermitting: (a: AssignmentDoc) => boolean;
  permission: string;
  allow: boolean;
  setRules: SetRuleTrace[];
}

async function explanationOf(
  deps: QueryDeps,
  request: CheckRequest,
  instance: InstanceDoc | null,
  tenant: string,
  ev: Evidence,
): Promise<Explanation> {
  const { type, key } = request.resource;
  const permissionsOf = (roles: RoleDoc[], role: string) => roles.find((r) => r.key === role)?.permissions ?? [];
  const grantedBy: GrantedBy[] = [];
  for (const grant of ev.grants.filter(ev.permitting)) {
    grantedBy.push({
      kind: 'resource_role',
      role: grant.role,
      resource_instance: grant.instance,
      permissions: permissionsOf(ev.resourceRoles, grant.role),
      chain: await derivationChain(deps.grants, grant),
    });
  }
  for (const a of ev.assignments.filter(ev.tenantPermitting)) {
    grantedBy.push({ kind: 'tenant_role', role: a.role, tenant: a.tenant, permission: ev.permission, assignment_id: a.id });
  }
  for (const t of ev.setRules.filter((t) => t.matched)) {
    grantedBy.push({
      kind: 'set_rule',
      set_rule: t.set_rule,
      user_set: t.user_set,
      permission: t.permission,
      resource_set: t.resource_set,
    });
  }
  const target = key === null ? `any '${type}' in tenant '${tenant}'` : `'${type}:${key}'`;
  const rolesHeld: Explanation['roles_held'] = ev.allow
    ? []
    : [
        ...ev.grants.map((g) => ({ kind: 'resource_role' as const, role: g.role, permissions: permissionsOf(ev.resourceRoles, g.role) })),
        ...ev.assignments.map((a) => ({ kind: 'tenant_role' as const, role: a.role, permissions: permissionsOf(ev.tenantRoles, a.role) })),
      ];
  return {
    decision: ev.allow ? 'allow' : 'deny',
    summary: ev.allow
      ? `'${request.user}' may '${request.action}' ${target}: ${grantedBy.map(describe).join('; ')}`
      : denial(request, target, instance, key, rolesHeld.length),
    resource: { type, key, tenant, instance_found: instance !== null },
    granted_by: grantedBy,
    roles_held: rolesHeld,
    set_rules: ev.setRules,
  };
}

function describe(g: GrantedBy): string {
  if (g.kind === 'set_rule') return `set rule '${g.set_rule}' (user set '${g.user_set}' on resource set '${g.resource_set}')`;
  if (g.kind === 'tenant_role') return `tenant role '${g.role}' in tenant '${g.tenant}' permits '${g.permission}'`;
  const root = g.chain[0];
  const via =
    root?.step === 'role_assignment' && root.resource_instance !== g.resource_instance
      ? `, derived from role '${root.role}' on '${root.resource_instance}' in ${g.chain.length - 1} step(s)`
      : '';
  return `role '${g.role}' on '${g.resource_instance}'${via}`;
}

function denial(request: CheckRequest, target: string, instance: InstanceDoc | null, key: string | null, held: number): string {
  const unknown = key !== null && instance === null ? ` (no instance '${request.resource.type}:${key}' exists)` : '';
  const roles =
    held === 0 ? `'${request.user}' holds no role there` : `none of the ${held} role(s) '${request.user}' holds there permits it`;
  return `Nothing grants '${request.user}' '${request.action}' on ${target}${unknown}: ${roles}`;
}
