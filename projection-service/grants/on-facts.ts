import type { EnvEventOf } from '../../shared/events';
import type { GrantContext } from './context';
import { deriveClosure, deriveStep } from './derive';
import { grantId, typeOf, type EdgeDoc, type GrantDoc } from '../../shared/read-models/grants/model';
import { holderPages } from './paging';
import { retract } from './retract';
import { restoreGuardedOnUnassignment, retractGuardedOnAssignment } from './conditions';
import { compareEnds, withEnd, type End } from '../../shared/read-models/grants/ends';

/** A resource role assigned on an instance: the grant itself, then everything it derives. Tenant-level roles are not materialised (checks read the assignment). */
export async function onRoleAssigned(ctx: GrantContext, e: EnvEventOf<'RoleAssigned'>): Promise<void> {
  const d = e.data;
  if (d.resourceInstance === null || d.resource === null) return;
  await retractGuardedOnAssignment(ctx, d.user, d.resourceInstance, d.role);
  await offerAssignment(ctx, { ...d, resource: d.resource, resourceInstance: d.resourceInstance }, d.expiresAt);
}

/**
 * A resource-role assignment as a support of its grant: the grant when there is none, else the
 * stored grant's support replaced when the assignment ends no earlier (a direct assignment is the
 * shortest explanation, and a root cannot close a cycle), and what it carries derived again when
 * its end moved later (docs/expiring-access.md).
 */
export async function offerAssignment(
  ctx: GrantContext,
  d: { id: string; user: string; role: string; resource: string; tenant: string; resourceInstance: string },
  end: End,
): Promise<void> {
  const id = grantId(ctx.environmentId, d.user, d.resourceInstance, d.role);
  const bare: GrantDoc = {
    id,
    environment_id: ctx.environmentId,
    user: d.user,
    instance: d.resourceInstance,
    resource: d.resource,
    role: d.role,
    tenant: d.tenant,
    from_grant: null,
    // A direct assignment is the shortest explanation, so it replaces a derived reason (a root cannot close a cycle).
    reason: { kind: 'assignment', assignment_id: d.id },
    created_at: ctx.at,
    updated_at: ctx.at,
  };
  const grant = withEnd(bare, end);
  // Usually the grant is new: inserting it is also the check.
  if ((await ctx.grants.insertMissing([grant])).length === 1) {
    ctx.stats.grantsWritten += 1;
    await deriveClosure(ctx, [grant]);
    return;
  }
  const existing = (await ctx.grants.get(id))!;
  if (existing.reason.kind === 'assignment' && existing.reason.assignment_id === d.id) return;
  const later = compareEnds(end, existing.expires_at);
  if (later < 0) return;
  const written = { ...grant, created_at: existing.created_at };
  await ctx.grants.put([written]);
  ctx.stats.grantsWritten += 1;
  if (later > 0) await deriveClosure(ctx, [written]);
}

export async function onRoleUnassigned(ctx: GrantContext, e: EnvEventOf<'RoleUnassigned'>): Promise<void> {
  const d = e.data;
  if (d.resourceInstance === null) return;
  const grant = await ctx.grants.get(grantId(ctx.environmentId, d.user, d.resourceInstance, d.role));
  if (grant?.reason.kind === 'assignment' && grant.reason.assignment_id === d.id) await retract(ctx, [grant]);
  await restoreGuardedOnUnassignment(ctx, d.user, d.resourceInstance, d.tenant);
}

/** A new tuple: every role held on its subject may now derive roles on its object. */
export async function onTupleCreated(ctx: GrantContext, e: EnvEventOf<'RelationshipTupleCreated'>): Promise<void> {
  await offerTuple(ctx, e.data, e.data.expiresAt ?? null);
}

/**
 * A tuple as a support: every role held on its subject may derive roles on its object, new
 * grants or stored ones whose support ends earlier than this one would (docs/expiring-access.md).
 */
export async function offerTuple(
  ctx: GrantContext,
  d: { id: string; subject: string; relation: string; object: string; tenant: string },
  end: End,
): Promise<void> {
  const edge: EdgeDoc = {
    id: d.id,
    environment_id: ctx.environmentId,
    subject: d.subject,
    relation: d.relation,
    object: d.object,
    tenant: d.tenant,
    expires_at: end ?? null,
  };
  // Most tuples carry no stored role (no rule follows their relation, or only rules to sink roles,
  // whose grants are implied when read): then no holder needs looking at.
  if (!carriesStoredRoles(ctx, d)) return;
  const known = ctx.holdersBefore(d.subject);
  if (known) {
    if (known.length > 0) await deriveClosure(ctx, await deriveStep(ctx, known, { edges: [edge] }));
    return;
  }
  for await (const holders of holderPages(ctx.grants, ctx.environmentId, d.subject)) {
    await deriveClosure(ctx, await deriveStep(ctx, holders, { edges: [edge] }));
  }
}

export async function onTupleDeleted(ctx: GrantContext, e: EnvEventOf<'RelationshipTupleDeleted'>): Promise<void> {
  const d = e.data;
  // No stored grant names a tuple that carries only to sink roles (or none).
  if (!carriesStoredRoles(ctx, d)) return;
  const roots: GrantDoc[] = [];
  for await (const page of holderPages(ctx.grants, ctx.environmentId, d.object)) {
    roots.push(...page.filter((g) => g.reason.kind === 'derivation' && g.reason.tuple.id === d.id));
  }
  await retract(ctx, roots);
}

/** Whether some rule whose grants are stored (no sink) follows the tuple. */
const carriesStoredRoles = (ctx: GrantContext, tuple: { subject: string; relation: string; object: string }): boolean =>
  ctx.rules
    .along(typeOf(tuple.subject), tuple.relation, typeOf(tuple.object))
    .some((entry) => !ctx.rules.isSink(entry.resource, entry.role));

/**
 * The log deletes an instance's tuples and assignments before the instance, so
 * nothing should be left; whatever is (e.g. from an older log) goes with it:
 * the facts projection has dropped the instance's leftover tuples, and every
 * grant on the instance is retracted. Grants derived through those tuples
 * either are on the instance or derive from a grant on it (their reason's
 * tuple starts there), so they are in the retracted subtrees; the tuples
 * being gone, the retraction finds the latter without them.
 */
export async function onInstanceDeleted(ctx: GrantContext, e: EnvEventOf<'ResourceInstanceDeleted'>): Promise<void> {
  const ref = `${e.data.resource}:${e.data.key}`;
  const roots: GrantDoc[] = [];
  for await (const page of holderPages(ctx.grants, ctx.environmentId, ref)) roots.push(...page);
  await retract(ctx, roots, ref);
}
