import type { ExpiryRun } from '../../shared/read-models/runs';
import { grantId, typeOf, type GrantDoc } from '../../shared/read-models/grants/model';
import type { GrantContext } from './context';
import { chunks, KEY_CHUNK, pagesByKeys, PAGE_SIZE } from './paging';
import { subtrees } from './retract';

/**
 * A run of expiries (shared/read-models/runs.ts) retracted at once: the grants it removes, when
 * deleting them is exactly what retracting its events one at a time would leave; null when it is
 * not, and the events are applied one at a time.
 *
 * One at a time, each expiry whose assignment is its grant's stored support retracts that grant's
 * subtree and restores from what remains (retract.ts). Let U be the union of the run's subtrees,
 * read before any of the run is applied. When no grant of U has a support outside U (an
 * assignment the run does not end, or a stored grant outside U through a tuple and a rule), one at
 * a time ends with U gone and every other grant as it was:
 * - a grant outside U keeps its support, whose chain passes through no root of the run, so no
 *   retraction of the run touches it; a restore may meet it only as a grant to derive, and, ends
 *   only coming earlier as supports go, never replaces its support (derive.ts, writeMissing);
 * - a grant of U still stored at the end would have a support chain from an assignment the run
 *   does not end; its first link in U has a support outside U, which was there before the run.
 * So the run's retraction is the deletion of U. The environment's `no_direct_roles_on_object`
 * roles (an expiry gives them back, conditions.ts) and sink grants still stored from before sinks
 * were implied (the per-event path drops them first) are left to the events one at a time.
 */
export async function runRetraction(ctx: GrantContext, run: ExpiryRun): Promise<GrantDoc[] | null> {
  if (ctx.rules.hasGuarded() || !ctx.rules.sinksImplied) return null;
  const expiring = new Set(run.map((event) => event.data.id));
  const ids = run.map((event) => grantId(ctx.environmentId, event.data.user, event.data.resourceInstance!, event.data.role));
  const roots = (await ctx.grants.byIds([...new Set(ids)])).filter(
    (grant) => grant.reason.kind === 'assignment' && expiring.has(grant.reason.assignment_id),
  );
  if (roots.length === 0) return [];
  const removed = await subtrees(ctx, roots, undefined);
  if (await supportedOutside(ctx, removed, expiring)) return null;
  return [...removed.values()];
}

/**
 * Whether some grant of `removed` has a support outside it: an assignment other than the `expiring`
 * ones, or a stored grant not in `removed` from which a tuple into the grant's instance carries its
 * role along a rule (the supports retract.ts's otherSupports finds, whichever ends last).
 */
async function supportedOutside(ctx: GrantContext, removed: Map<string, GrantDoc>, expiring: Set<string>): Promise<boolean> {
  const env = ctx.environmentId;
  const grants = [...removed.values()];
  for (const chunk of chunks(grants, KEY_CHUNK)) {
    const assignments = await ctx.assignments.find(
      {
        environment_id: env,
        user: { $in: unique(chunk.map((g) => g.user)) },
        resource_instance: { $in: unique(chunk.map((g) => g.instance)) },
      },
      { fields: ['user', 'role', 'resource_instance'] },
    );
    for (const a of assignments) {
      if (expiring.has(a.id) || a.resource_instance === null) continue;
      if (removed.has(grantId(env, a.user, a.resource_instance, a.role))) return true;
    }
  }
  const byInstance = new Map<string, GrantDoc[]>();
  for (const g of grants) {
    if (ctx.rules.incoming(g.resource, g.role).length === 0) continue;
    const list = byInstance.get(g.instance);
    if (list) list.push(g);
    else byInstance.set(g.instance, [g]);
  }
  for await (const page of pagesByKeys(ctx.edges, { environment_id: env }, 'object', [...byInstance.keys()], 'subject', PAGE_SIZE)) {
    const parents = new Set<string>();
    for (const edge of page) {
      for (const grant of byInstance.get(edge.object) ?? []) {
        if (grant.tenant !== edge.tenant) continue;
        for (const entry of ctx.rules.incoming(grant.resource, grant.role)) {
          if (entry.rule.onResource !== typeOf(edge.subject) || entry.rule.relation !== edge.relation) continue;
          const parent = grantId(env, grant.user, edge.subject, entry.rule.role);
          if (!removed.has(parent)) parents.add(parent);
        }
      }
    }
    if (parents.size > 0 && (await ctx.grants.byIds([...parents])).length > 0) return true;
    await ctx.yielder.maybeYield();
  }
  return false;
}

const unique = <T>(values: T[]): T[] => [...new Set(values)];
