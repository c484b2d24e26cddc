import type { GrantContext } from './context';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import { holderPagesOf, keysetPages, PAGE_SIZE } from './paging';

/**
 * Every grant of `role` on instances of `resource`, in pages: the instances of
 * the type in key order (the facts read model, current since it runs first),
 * then their grants, keeping that role's.
 *
 * Only rule changes and role deletes ask this, and they are rare; a grants
 * index on (environment, resource, role) would serve it directly but cost an
 * index entry on every grant written, which is the projection's hot path.
 * Grants exist only on instances that exist: an instance is created before
 * anything refers to it, and deleting it retracts every grant on it.
 */
export async function* grantsOfRole(ctx: GrantContext, resource: string, role: string): AsyncGenerator<GrantDoc[]> {
  const env = ctx.environmentId;
  for await (const instances of keysetPages(ctx.instanceKeys, { environment_id: env, resource }, 'key', PAGE_SIZE)) {
    const refs = instances.map((i) => `${resource}:${i.key}`);
    for await (const grants of holderPagesOf(ctx.grants, env, refs)) {
      const ofRole = grants.filter((g) => g.role === role && g.resource === resource);
      if (ofRole.length > 0) yield ofRole;
    }
    await ctx.yielder.maybeYield();
  }
}
