import type { EnvEventOf } from '../../shared/events';
import type { GrantContext } from './context';
import { deriveClosure, deriveStep } from './derive';
import { sameEntry, sameRule, type GrantDoc, type RuleEntry } from '../../shared/read-models/grants/model';
import { retract } from './retract';
import { deleteByIds } from './paging';
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
 * reason used them. Roles no rule starts from any more became sinks: their
 * derived grants are implied from now on, so their rows go. Roles a rule
 * starts from again are sinks no longer: their derived grants are stored
 * first (along the rules into them). Added rules: every holder of a rule's
 * source role derives along it (and on from there).
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
  const { becameSinks, becameSources } = sinkChanges(ctx, added, removed);
  for (const { resource, role } of becameSinks) await dropDerivedRows(ctx, resource, role);
  for (const { resource, role } of becameSources) {
    for (const entry of ctx.rules.incoming(resource, role)) await deriveAlong(ctx, entry);
  }
  for (const entry of added) await deriveAlong(ctx, entry);
}

/** Every holder of the rule's source role derives along it, and on from there. */
async function deriveAlong(ctx: GrantContext, entry: RuleEntry): Promise<void> {
  for await (const page of grantsOfRole(ctx, entry.rule.onResource, entry.rule.role)) {
    await deriveClosure(ctx, await deriveStep(ctx, page, { rule: entry }));
  }
}

type RoleRef = { resource: string; role: string };

/**
 * The roles whose sink status the change moved: only the source role of an added or removed rule
 * can gain or lose an outgoing rule. Before the change its outgoing rules were the current ones
 * less those added, plus those removed.
 */
function sinkChanges(ctx: GrantContext, added: RuleEntry[], removed: RuleEntry[]): { becameSinks: RoleRef[]; becameSources: RoleRef[] } {
  const sources = new Map<string, RoleRef>();
  for (const { rule } of [...added, ...removed])
    sources.set(`${rule.onResource}#${rule.role}`, { resource: rule.onResource, role: rule.role });
  const startsFrom = (entry: RuleEntry, { resource, role }: RoleRef) => entry.rule.onResource === resource && entry.rule.role === role;
  const becameSinks: RoleRef[] = [];
  const becameSources: RoleRef[] = [];
  for (const source of sources.values()) {
    const now = ctx.rules.outgoing(source.resource, source.role);
    const before = now.filter((e) => !added.some((a) => sameEntry(a, e))).length + removed.filter((e) => startsFrom(e, source)).length;
    if (now.length === 0 && before > 0) becameSinks.push(source);
    if (now.length > 0 && before === 0) becameSources.push(source);
  }
  return { becameSinks, becameSources };
}

/**
 * Deletes the stored derived grants of a role that is a sink now. Nothing stored derives from
 * them: no rule starts from the role any more, and what the removed rules carried was retracted
 * first. Direct grants (assignments) keep their rows.
 */
async function dropDerivedRows(ctx: GrantContext, resource: string, role: string): Promise<void> {
  const ids: string[] = [];
  for await (const page of grantsOfRole(ctx, resource, role))
    ids.push(...page.filter((g) => g.reason.kind === 'derivation').map((g) => g.id));
  ctx.stats.grantsDeleted += await deleteByIds(ctx.grants, ids, ctx.yielder);
}

/**
 * Read models written before sink roles were implied hold rows for their derived grants. The
 * first event of such an environment deletes them (then the index records that it did), so
 * that no retraction leaves a stale one behind: the retraction no longer looks for them.
 */
export async function dropStoredSinkGrants(ctx: GrantContext): Promise<void> {
  const sinks = new Map<string, RoleRef>();
  for (const entry of ctx.rules.all()) {
    if (ctx.rules.isSink(entry.resource, entry.role)) sinks.set(`${entry.resource}#${entry.role}`, entry);
  }
  for (const { resource, role } of sinks.values()) await dropDerivedRows(ctx, resource, role);
  ctx.rules.markSinksImplied();
}
