import type { EnvEventOf } from '../../shared/events';
import type { GrantContext } from './context';
import { deriveClosure, deriveStep } from './derive';
import { grantId, typeOf, type GrantDoc } from '../../shared/read-models/grants/model';
import { directlyAssigned, pairKey } from './direct-roles';
import { restore, retract } from './retract';
import { grantsOfRole } from './role-holders';

/**
 * `no_direct_roles_on_object` (Permit's derivation condition, kept per role):
 * a guarded role is derived for a user on an instance only while that user
 * holds no direct role assignment there. The condition is part of what a
 * support is (derive.ts and retract.ts check it), and the grants stay exact
 * as direct assignments come and go: an assignment retracts the user's derived
 * guarded grants on the instance (and what they carried), and the last one's
 * removal derives them again.
 */

/** A direct role assigned: the user's derived grants of guarded roles on that instance lose their support. */
export async function retractGuardedOnAssignment(ctx: GrantContext, user: string, instance: string, assignedRole: string): Promise<void> {
  const resource = typeOf(instance);
  if (ctx.rules.guardedOf(resource).length === 0) return;
  const held = await ctx.grants.userOn(ctx.environmentId, user, [instance]);
  // The assigned role's own grant becomes direct (onRoleAssigned replaces its reason), so it is not retracted.
  const roots = held.filter((g) => g.reason.kind === 'derivation' && g.role !== assignedRole && ctx.rules.isGuarded(g.resource, g.role));
  await retract(ctx, roots);
}

/** The user's last direct role on the instance went: the guarded roles derivable there are derived again. */
export async function restoreGuardedOnUnassignment(ctx: GrantContext, user: string, instance: string, tenant: string): Promise<void> {
  const resource = typeOf(instance);
  const guarded = ctx.rules.guardedOf(resource).filter((role) => ctx.rules.incoming(resource, role).length > 0);
  if (guarded.length === 0) return;
  if ((await directlyAssigned(ctx, [{ user, instance }])).size > 0) return;
  // Only grants that are not stored: one that is keeps its support (rewriting it could close a cycle of reasons).
  const stored = new Set(
    (await ctx.grants.byIds(guarded.map((role) => grantId(ctx.environmentId, user, instance, role)))).map((g) => g.id),
  );
  const candidates: GrantDoc[] = guarded
    .filter((role) => !stored.has(grantId(ctx.environmentId, user, instance, role)))
    .map((role) => ({
      id: grantId(ctx.environmentId, user, instance, role),
      environment_id: ctx.environmentId,
      user,
      instance,
      resource,
      role,
      tenant,
      from_grant: null,
      reason: { kind: 'assignment', assignment_id: '' }, // replaced by the support restore() finds
      created_at: ctx.at,
      updated_at: ctx.at,
    }));
  await deriveClosure(ctx, await restore(ctx, candidates));
}

/** `PUT …/implicit_grants/conditions` or a role's `granted_to.when`. */
export async function onDerivationConditionsSet(ctx: GrantContext, e: EnvEventOf<'RoleDerivationConditionsSet'>): Promise<void> {
  const { resource, key, noDirectRolesOnObject } = e.data;
  if (resource === null || !ctx.rules.setGuarded(resource, key, noDirectRolesOnObject)) return;
  if (noDirectRolesOnObject) {
    // Derived grants of the role held where the user also holds a direct role lose their support.
    const roots: GrantDoc[] = [];
    for await (const page of grantsOfRole(ctx, resource, key)) {
      const derived = page.filter((g) => g.reason.kind === 'derivation');
      const direct = await directlyAssigned(ctx, derived);
      roots.push(...derived.filter((g) => direct.has(pairKey(g.user, g.instance))));
    }
    await retract(ctx, roots);
    return;
  }
  // Lifted: every rule of the role derives again from its source role's holders (existing grants are kept as they are).
  for (const entry of ctx.rules.incoming(resource, key)) {
    for await (const page of grantsOfRole(ctx, entry.rule.onResource, entry.rule.role)) {
      await deriveClosure(ctx, await deriveStep(ctx, page, { rule: entry }));
    }
  }
}
