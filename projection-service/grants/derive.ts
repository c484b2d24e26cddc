import type { GrantContext } from './context';
import { carriesAlong, grantId, sameEntry, type EdgeDoc, type GrantDoc, type RuleEntry } from '../../shared/read-models/grants/model';
import { insertMissingInChunks, pagesByKeys, PAGE_SIZE, putInChunks } from './paging';
import { compareEnds, earlierEnd, withEnd } from '../../shared/read-models/grants/ends';
import { directlyAssigned, pairKey } from './direct-roles';

/** Limits the first derivation step to one new tuple or one new rule. */
export interface Restriction {
  edges?: EdgeDoc[];
  rule?: RuleEntry;
}

/**
 * One derivation step: the grants that `holders` give along tuples (subject →
 * object) and the rules that start from their roles, restricted to the new
 * tuple or rule when one is given. Writes the ones that do not exist yet and
 * returns them (only those need expanding further). Grants of sink roles (no
 * rule starts from them) are not written: readers imply them from the tuple
 * and the holder's grant (docs/grants.md, "Sink roles").
 */
export async function deriveStep(ctx: GrantContext, holders: GrantDoc[], restriction: Restriction = {}): Promise<GrantDoc[]> {
  // Grants of sink roles are not stored (they are implied when read), so nothing is derived along the rules to them.
  const rulesOf = (g: GrantDoc) =>
    ctx.rules.storedOutgoing(g.resource, g.role).filter((entry) => restriction.rule === undefined || sameEntry(entry, restriction.rule));
  const byInstance = new Map<string, GrantDoc[]>();
  for (const holder of holders) {
    if (rulesOf(holder).length === 0) continue;
    const list = byInstance.get(holder.instance);
    if (list) list.push(holder);
    else byInstance.set(holder.instance, [holder]);
  }
  if (byInstance.size === 0) return [];

  const pages = restriction.edges
    ? [restriction.edges]
    : (prefetched(ctx, byInstance) ??
      pagesByKeys(ctx.edges, { environment_id: ctx.environmentId }, 'subject', [...byInstance.keys()], 'object', PAGE_SIZE));
  const fresh: GrantDoc[] = [];
  for await (const page of pages) {
    const candidates = new Map<string, GrantDoc>();
    for (const edge of page) {
      for (const holder of byInstance.get(edge.subject) ?? []) {
        // Tuples never cross tenants (the decider refuses them); checked again so a grant can never leave its tenant.
        if (holder.tenant !== edge.tenant) continue;
        for (const entry of rulesOf(holder)) {
          if (!carriesAlong(entry, edge)) continue;
          const id = grantId(ctx.environmentId, holder.user, edge.object, entry.role);
          const known = candidates.get(id);
          // Of several supports, the one whose chain ends last (docs/expiring-access.md).
          if (known === undefined || compareEnds(earlierEnd(holder.expires_at, edge.expires_at), known.expires_at) > 0)
            candidates.set(id, derivedGrant(ctx, id, holder, edge, entry));
        }
      }
    }
    await dropGuarded(ctx, candidates);
    fresh.push(...(await writeMissing(ctx, candidates)));
    await ctx.yielder.maybeYield();
  }
  return fresh;
}

/** A derivation from one instance (a new direct grant) whose tuples were read before the batch: them, as the one page asking would give. */
function prefetched(ctx: GrantContext, byInstance: Map<string, GrantDoc[]>): EdgeDoc[][] | undefined {
  if (byInstance.size !== 1) return undefined;
  const edges = ctx.prefetchedEdges(byInstance.keys().next().value!);
  return edges && (edges.length > 0 ? [edges] : []);
}

/**
 * Derives everything that follows from `seeds` (which exist already), breadth
 * first. Terminates on cycles: only grants that did not exist are expanded,
 * and each grant is created once.
 */
export async function deriveClosure(ctx: GrantContext, seeds: GrantDoc[]): Promise<void> {
  let queue = seeds;
  let head = 0;
  while (head < queue.length) {
    const chunk = queue.slice(head, head + PAGE_SIZE);
    head += chunk.length;
    const fresh = await deriveStep(ctx, chunk);
    if (head > 50_000) {
      // Keep memory flat on large fan-outs: drop what has been expanded.
      queue = queue.slice(head);
      head = 0;
    }
    for (const grant of fresh) queue.push(grant);
  }
}

/** Candidates of roles with `no_direct_roles_on_object` for a user who holds a direct role on that instance are no grants. */
async function dropGuarded(ctx: GrantContext, candidates: Map<string, GrantDoc>): Promise<void> {
  const guarded = [...candidates.values()].filter((g) => ctx.rules.isGuarded(g.resource, g.role));
  if (guarded.length === 0) return;
  const direct = await directlyAssigned(ctx, guarded);
  for (const g of guarded) if (direct.has(pairKey(g.user, g.instance))) candidates.delete(g.id);
}

/**
 * Writes the candidates that are not stored yet, and those whose support ends later than the
 * stored one's (which they replace: a grant keeps the support that ends last); returns them (the
 * grants whose dependants may gain). A stored support that ends at the same instant or later is
 * kept: replacing a support only for a strictly later end never closes a cycle of reasons (a chain
 * through the grant itself ends no later than the grant).
 */
async function writeMissing(ctx: GrantContext, candidates: Map<string, GrantDoc>): Promise<GrantDoc[]> {
  if (candidates.size === 0) return [];
  const fresh = await insertMissingInChunks(ctx.grants, [...candidates.values()], ctx.yielder);
  ctx.stats.grantsWritten += fresh.length;
  if (fresh.length === candidates.size) return fresh;
  const inserted = new Set(fresh.map((g) => g.id));
  const stored = await ctx.grants.byIds([...candidates.keys()].filter((id) => !inserted.has(id)));
  const later = stored.flatMap((existing) => {
    const candidate = candidates.get(existing.id)!;
    return compareEnds(candidate.expires_at, existing.expires_at) > 0 ? [{ ...candidate, created_at: existing.created_at }] : [];
  });
  if (later.length > 0) {
    await putInChunks(ctx.grants, later, ctx.yielder);
    ctx.stats.grantsWritten += later.length;
  }
  return [...fresh, ...later];
}

export function derivedGrant(ctx: GrantContext, id: string, from: GrantDoc, edge: EdgeDoc, entry: RuleEntry): GrantDoc {
  const grant: GrantDoc = {
    id,
    environment_id: ctx.environmentId,
    user: from.user,
    instance: edge.object,
    resource: entry.resource,
    role: entry.role,
    tenant: edge.tenant,
    from_grant: from.id,
    reason: {
      kind: 'derivation',
      from_grant: from.id,
      tuple: { id: edge.id, subject: edge.subject, relation: edge.relation, object: edge.object },
      rule: entry.rule,
    },
    created_at: ctx.previous.get(id)?.created_at ?? ctx.at,
    updated_at: ctx.at,
  };
  return withEnd(grant, earlierEnd(from.expires_at, edge.expires_at));
}
