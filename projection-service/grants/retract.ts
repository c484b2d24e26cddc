import type { GrantContext } from './context';
import { deriveClosure } from './derive';
import {
  carriesAlong,
  grantId,
  idRange,
  typeGrantIds,
  typeOf,
  type GrantDoc,
  type GrantReason,
  type RuleEntry,
} from '../../shared/read-models/grants/model';
import { chunks, deleteByIds, KEY_CHUNK, pagesByKeys, PAGE_SIZE, putInChunks } from './paging';
import { pairKey } from './direct-roles';
import { compareEnds, earlierEnd, withEnd } from '../../shared/read-models/grants/ends';

/**
 * Removes a support: `roots` are the grants whose stored reason used the
 * removed assignment, tuple or rule (already gone from the facts and rules).
 *
 * Delete and re-derive, limited to what the removed support carried: every
 * grant's reason points to an older grant, so the reasons form a forest rooted
 * at assignments, and the grants that may have lost their last support are
 * exactly the roots' subtrees. Those are deleted; each is then restored if it
 * has another support among the grants that remain (a direct assignment, or a
 * remaining grant + tuple + rule), and everything derivable from the restored
 * ones is derived again. Diamonds keep the grant (the other path is a remaining
 * support); cycles terminate (a removed grant never supports another removed one).
 *
 * `tuplesDroppedFrom`: an instance whose tuples the facts projection dropped
 * with no event of their own (an instance deleted with tuples left, from an
 * older log); the dependants of the roots on it are then found without them
 * (see dependantsByUser).
 */
export async function retract(ctx: GrantContext, roots: GrantDoc[], tuplesDroppedFrom?: string): Promise<void> {
  if (roots.length === 0) return;
  const removed = await subtrees(ctx, roots, tuplesDroppedFrom);
  ctx.stats.grantsDeleted += await deleteByIds(ctx.grants, [...removed.keys()], ctx.yielder);
  for (const [id, grant] of removed) ctx.previous.set(id, grant);

  await deriveClosure(ctx, await restore(ctx, [...removed.values()]));
}

/**
 * Writes back each of `grants` (not stored) that has a support among the
 * stored grants, facts and rules, with that support; returns those written
 * (the caller derives on from them). A grant of a sink role supported only by
 * a derivation stays unwritten: it holds, implied by that support.
 */
export async function restore(ctx: GrantContext, grants: GrantDoc[]): Promise<GrantDoc[]> {
  const restored: GrantDoc[] = [];
  for (const chunk of chunks(grants, KEY_CHUNK)) {
    const supports = await otherSupports(ctx, chunk);
    const docs = chunk.flatMap((g) => {
      const support = supports.get(g.id);
      // A sink role's grant derived from another is implied when read, not stored.
      if (!support || (support.reason.kind === 'derivation' && ctx.rules.isSink(g.resource, g.role))) return [];
      const { reason, end } = support;
      return [withEnd({ ...g, reason, from_grant: reason.kind === 'derivation' ? reason.from_grant : null, updated_at: ctx.at }, end)];
    });
    if (docs.length > 0) {
      // Written at once, so later chunks can use them as supports.
      await putInChunks(ctx.grants, docs, ctx.yielder);
      ctx.stats.grantsWritten += docs.length;
      restored.push(...docs);
    }
    await ctx.yielder.maybeYield();
  }
  return restored;
}

/** The roots and every grant whose reason chain passes through one of them (a run of expiries reads them too, expiry-runs.ts). */
export async function subtrees(
  ctx: GrantContext,
  roots: GrantDoc[],
  tuplesDroppedFrom: string | undefined,
): Promise<Map<string, GrantDoc>> {
  const removed = new Map(roots.map((g) => [g.id, g]));
  let frontier = roots;
  while (frontier.length > 0) {
    const next: GrantDoc[] = [];
    for await (const page of dependants(ctx, frontier, tuplesDroppedFrom)) {
      for (const child of page) {
        if (removed.has(child.id)) continue;
        removed.set(child.id, child);
        next.push(child);
      }
      await ctx.yielder.maybeYield();
    }
    frontier = next;
  }
  return removed;
}

/**
 * The stored grants whose support is one of `grants`. A grant derived from G
 * lies on the object of a tuple that starts at G's instance, along a rule that
 * starts from G's role, and the grant's support names that tuple and rule,
 * which are still there (removing either retracts what it supported first).
 * So the tuples from the grants' instances name every candidate, read by id,
 * and a candidate is a dependant when its support is one of `grants`. (The
 * grants used to keep an index on their support for this: one B-tree entry
 * more for every grant written, the most written rows of all.)
 */
async function* dependants(ctx: GrantContext, grants: GrantDoc[], tuplesDroppedFrom: string | undefined): AsyncGenerator<GrantDoc[]> {
  const env = ctx.environmentId;
  const byInstance = new Map<string, GrantDoc[]>();
  for (const grant of grants) {
    if (ctx.rules.storedOutgoing(grant.resource, grant.role).length === 0) continue;
    if (grant.instance === tuplesDroppedFrom) {
      yield* dependantsByUser(ctx, grant);
      continue;
    }
    const list = byInstance.get(grant.instance);
    if (list) list.push(grant);
    else byInstance.set(grant.instance, [grant]);
  }
  if (byInstance.size === 0) return;
  for await (const page of pagesByKeys(ctx.edges, { environment_id: env }, 'subject', [...byInstance.keys()], 'object', PAGE_SIZE)) {
    // Candidate id → the grants it would derive from (two roles on one folder may each give one role on a file).
    const supports = new Map<string, Set<string>>();
    for (const edge of page) {
      for (const grant of byInstance.get(edge.subject) ?? []) {
        for (const entry of ctx.rules.storedOutgoing(grant.resource, grant.role)) {
          if (!carriesAlong(entry, edge)) continue;
          const id = grantId(env, grant.user, edge.object, entry.role);
          const from = supports.get(id);
          if (from) from.add(grant.id);
          else supports.set(id, new Set([grant.id]));
        }
      }
    }
    if (supports.size === 0) continue;
    const found = await ctx.grants.byIds([...supports.keys()]);
    const children = found.filter((g) => g.from_grant !== null && supports.get(g.id)!.has(g.from_grant));
    if (children.length > 0) yield children;
    await ctx.yielder.maybeYield();
  }
}

/**
 * The dependants of `grant` without the tuples that carried them (they were
 * dropped): grants of the same user, of a role some rule derives from
 * `grant`'s role, on instances of that rule's type, whose support is `grant`.
 * Each such type is a range of the id index (typeGrantIds), read in pages
 * (GrantStore.userRange) and kept where the support is `grant`; it holds every
 * grant of the user on the type, so this is kept for the rare case that needs it.
 */
async function* dependantsByUser(ctx: GrantContext, grant: GrantDoc): AsyncGenerator<GrantDoc[]> {
  const types = unique(ctx.rules.storedOutgoing(grant.resource, grant.role).map((entry) => entry.resource));
  for (const type of types) {
    const range = idRange(typeGrantIds(ctx.environmentId, grant.user, type));
    for (;;) {
      const page = await ctx.grants.userRange(range, {}, { limit: PAGE_SIZE });
      const children = page.filter((g) => g.from_grant === grant.id);
      if (children.length > 0) yield children;
      if (page.length < PAGE_SIZE) break;
      range.after = page[page.length - 1]!.id;
    }
  }
}

/** A support and the end of its chain (the first end along it; undefined: never). */
interface Support {
  reason: GrantReason;
  end: string | undefined;
}

/**
 * For each grant of `chunk` that still has a support among the stored grants, facts and rules: the
 * one whose chain ends last (docs/expiring-access.md); of those that end together, a direct
 * assignment first.
 */
async function otherSupports(ctx: GrantContext, chunk: GrantDoc[]): Promise<Map<string, Support>> {
  const env = ctx.environmentId;
  const wanted = new Set(chunk.map((g) => g.id));
  const found = new Map<string, Support>();
  const offer = (id: string, support: Support) => {
    const known = found.get(id);
    if (known === undefined || compareEnds(support.end, known.end) > 0) found.set(id, support);
  };

  const assignments = await ctx.assignments.find({
    environment_id: env,
    user: { $in: unique(chunk.map((g) => g.user)) },
    resource_instance: { $in: unique(chunk.map((g) => g.instance)) },
  });
  // Users holding a direct role on an instance: guarded roles (no_direct_roles_on_object) are not derived for them there.
  const direct = new Set<string>();
  for (const a of assignments.sort((x, y) => x.id.localeCompare(y.id))) {
    direct.add(pairKey(a.user, a.resource_instance ?? ''));
    const id = grantId(env, a.user, a.resource_instance ?? '', a.role);
    if (wanted.has(id)) offer(id, { reason: { kind: 'assignment', assignment_id: a.id }, end: a.expires_at ?? undefined });
  }
  const derivable = (g: GrantDoc) => !(ctx.rules.isGuarded(g.resource, g.role) && direct.has(pairKey(g.user, g.instance)));

  // Only grants without a support that never ends (an assignment without an end) and derivable here need the parent lookup.
  const neverEnds = (g: GrantDoc) => found.has(g.id) && found.get(g.id)!.end === undefined;
  const derivableHere = chunk.filter((g) => !neverEnds(g) && derivable(g));
  const parentHeld = await heldParentRoles(ctx, derivableHere);
  const byInstance = new Map<string, GrantDoc[]>();
  for (const g of derivableHere) {
    if (!ctx.rules.incoming(g.resource, g.role).some((entry) => parentHeld(g.user, entry))) continue;
    byInstance.set(g.instance, [...(byInstance.get(g.instance) ?? []), g]);
  }
  const pages = pagesByKeys(ctx.edges, { environment_id: env }, 'object', [...byInstance.keys()], 'subject', PAGE_SIZE);
  for await (const page of pages) {
    const options: Array<{ grant: GrantDoc; parent: string; reason: GrantReason; edgeEnd: string | null | undefined }> = [];
    for (const edge of page) {
      for (const grant of byInstance.get(edge.object) ?? []) {
        if (neverEnds(grant) || grant.tenant !== edge.tenant) continue;
        for (const entry of ctx.rules.incoming(grant.resource, grant.role)) {
          if (entry.rule.onResource !== typeOf(edge.subject) || entry.rule.relation !== edge.relation) continue;
          const parent = grantId(env, grant.user, edge.subject, entry.rule.role);
          options.push({
            grant,
            parent,
            reason: {
              kind: 'derivation',
              from_grant: parent,
              tuple: { id: edge.id, subject: edge.subject, relation: edge.relation, object: edge.object },
              rule: entry.rule,
            },
            edgeEnd: edge.expires_at,
          });
        }
      }
    }
    if (options.length === 0) continue;
    const present = new Map((await ctx.grants.byIds(unique(options.map((o) => o.parent)))).map((g) => [g.id, g]));
    for (const option of options) {
      const parent = present.get(option.parent);
      if (parent) offer(option.grant.id, { reason: option.reason, end: earlierEnd(parent.expires_at, option.edgeEnd) });
    }
    await ctx.yielder.maybeYield();
  }
  return found;
}

/** Most (user, parent type, role) lookups for one chunk in heldParentRoles; with more, every rule counts as possibly held. */
const HELD_LOOKUPS = 50;
/** Most of a user's grants on one type that heldParentRoles looks through; a user holding more counts as possibly holding every role there. */
const HELD_ROWS = 100;

/**
 * Whether a user may hold the parent role a rule derives from: false only when the stored grants
 * give the user that role on no instance of the rule's parent type, so that no tuple can carry a
 * support through the rule. Taking a role away from a folder of 100,000 files used to read the
 * parent tuples of every file, only to find no parent grant; one read of the user's grants on
 * folders now shows that none is left.
 *
 * Per distinct (user, parent type) of `grants`, the user's grants on that type are a range of the
 * id index (typeGrantIds). One count of the range, stopped at HELD_ROWS + 1 rows
 * (GrantStore.countUserRange), tells whether the user holds more than HELD_ROWS of them: then
 * every role there counts as possibly held. Otherwise one read per role asks for the first grant
 * with that role, the engine stepping through at most HELD_ROWS rows and returning one. (It used to return up to 101 of the user's
 * grants on the type, every role, per (user, type), which made a rebuild much slower where an
 * account's admins hold many folders; one row per role without the bound was a little faster, but
 * unbounded: docs/bench-history/design-choices.md.) Past HELD_LOOKUPS (user, type, role) lookups every
 * rule counts as possibly held. Where a rule is possibly held, the tuples are read as before.
 */
async function heldParentRoles(ctx: GrantContext, grants: GrantDoc[]): Promise<(user: string, entry: RuleEntry) => boolean> {
  const pairs = new Map<string, { user: string; type: string; roles: Set<string> }>();
  for (const g of grants) {
    for (const { rule } of ctx.rules.incoming(g.resource, g.role)) {
      const key = heldKey(g.user, rule.onResource);
      const pair = pairs.get(key) ?? { user: g.user, type: rule.onResource, roles: new Set<string>() };
      pair.roles.add(rule.role);
      pairs.set(key, pair);
    }
  }
  let lookups = 0;
  for (const { roles } of pairs.values()) lookups += roles.size;
  if (lookups > HELD_LOOKUPS) return () => true;
  const heldRoles = new Map<string, Set<string>>();
  for (const [key, { user, type, roles }] of pairs) {
    const ids = idRange(typeGrantIds(ctx.environmentId, user, type));
    if ((await ctx.grants.countUserRange(ids, {}, HELD_ROWS + 1)) > HELD_ROWS) {
      heldRoles.set(key, roles);
      continue;
    }
    const held = new Set<string>();
    for (const role of roles) {
      const rows = await ctx.grants.userRange(ids, { roles: [role] }, { limit: 1 });
      if (rows.length > 0) held.add(role);
    }
    heldRoles.set(key, held);
  }
  return (user, entry) => heldRoles.get(heldKey(user, entry.rule.onResource))?.has(entry.rule.role) === true;
}

const heldKey = (user: string, type: string) => `${user}\u0000${type}`;

const unique = <T>(values: T[]): T[] => [...new Set(values)];
