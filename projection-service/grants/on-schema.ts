import type { EnvEventOf } from '../../shared/events';
import type { GrantContext } from './context';
import { deriveClosure, deriveStep } from './derive';
import { sameRule, type GrantDoc, type RuleEntry } from '../../shared/read-models/grants/model';
import { retract } from './retract';
import { grantsOfRole } from './role-holders';

/** `granted_to` replaced (PATCH): rules that went lose their grants, rules that came derive new ones. */
export async function onDerivationsReplaced(ctx: GrantContext, e: EnvEventOf<'RoleDerivationsReplaced'>): Promise<void> {
  if (e.data.resource === null) return;
  const { added, removed } = ctx.rules.replace(e.data.resource, e.data.key, e.data.rules);
  await rulesChanged(ctx, added, removed);
}

export async function onImplicitGrantAdded(ctx: GrantContext, e: EnvEventOf<'ImplicitGrantAdded'>): Promise<void> {
  if (e.data.resource === null) return;
  const entry = { resource: e.data.resource, role: e.data.key, rule: e.data.rule };
  await rulesChanged(ctx, ctx.rules.add(entry) ? [entry] : [], []);
}

export async function onImplicitGrantRemoved(ctx: GrantContext, e: EnvEventOf<'ImplicitGrantRemoved'>): Promise<void> {
  const { resource, key } = e.data;
  if (resource === null) return;
  const removed = ctx.rules.removeWhere((r) => r.resource === resource && r.role === key && sameRule(r.rule, e.data.rule));
  await rulesChanged(ctx, [], removed);
}

/**
 * A role goes (its assignments and the rules of other roles that start from it
 * went before it, as explicit events): its own rules go, and so does every grant
 * of it that is left.
 */
export async function onRoleDeleted(ctx: GrantContext, e: EnvEventOf<'RoleDeleted'>): Promise<void> {
  const { resource, key } = e.data;
  if (resource === null) return;
  const removed = ctx.rules.removeWhere(
    (r) => (r.resource === resource && r.role === key) || (r.rule.onResource === resource && r.rule.role === key),
  );
  ctx.rules.setGuarded(resource, key, false);
  await rulesChanged(ctx, [], removed);
  const roots: GrantDoc[] = [];
  for await (const page of grantsOfRole(ctx, resource, key)) roots.push(...page);
  await retract(ctx, roots);
}

/** Rules that follow a deleted relation go with it (tuples of the relation were deleted before, as events). */
export async function onRelationDeleted(ctx: GrantContext, e: EnvEventOf<'RelationDeleted'>): Promise<void> {
  const { objectResource, subjectResource, key } = e.data;
  const removed = ctx.rules.removeWhere(
    (r) => r.resource === objectResource && r.rule.onResource === subjectResource && r.rule.relation === key,
  );
  await rulesChanged(ctx, [], removed);
}

export async function onResourceDeleted(ctx: GrantContext, e: EnvEventOf<'ResourceDeleted'>): Promise<void> {
  const removed = ctx.rules.removeWhere((r) => r.resource === e.data.key || r.rule.onResource === e.data.key);
  for (const role of ctx.rules.guardedOf(e.data.key)) ctx.rules.setGuarded(e.data.key, role, false);
  await rulesChanged(ctx, [], removed);
}

/**
 * The rule index is already updated. Removed rules: retract the grants whose
 * reason used them. Added rules: every holder of a rule's source role derives
 * along it (and on from there).
 */
async function rulesChanged(ctx: GrantContext, added: RuleEntry[], removed: RuleEntry[]): Promise<void> {
  if (added.length === 0 && removed.length === 0) return;
  const roots: GrantDoc[] = [];
  for (const entry of removed) {
    for await (const page of grantsOfRole(ctx, entry.resource, entry.role)) {
      roots.push(...page.filter((g) => g.reason.kind === 'derivation' && sameRule(g.reason.rule, entry.rule)));
    }
  }
  await retract(ctx, roots);
  for (const entry of added) {
    for await (const page of grantsOfRole(ctx, entry.rule.onResource, entry.rule.role)) {
      await deriveClosure(ctx, await deriveStep(ctx, page, { rule: entry }));
    }
  }
}
