import type { GrantContext } from './context';
import { chunks, KEY_CHUNK } from './paging';

/** Whether users hold a direct role on instances: what `no_direct_roles_on_object` (conditions.ts) asks. */

export const pairKey = (user: string, instance: string) => `${user}|${instance}`;

/** Of the given (user, instance) pairs, those where the user holds a direct role assignment (any role) on the instance. */
export async function directlyAssigned(ctx: GrantContext, pairs: Array<{ user: string; instance: string }>): Promise<Set<string>> {
  const found = new Set<string>();
  if (pairs.length === 0) return found;
  const wanted = new Set(pairs.map((p) => pairKey(p.user, p.instance)));
  const users = [...new Set(pairs.map((p) => p.user))];
  const instances = [...new Set(pairs.map((p) => p.instance))];
  for (const userChunk of chunks(users, KEY_CHUNK)) {
    for (const instanceChunk of chunks(instances, KEY_CHUNK)) {
      const assignments = await ctx.assignments.find(
        { environment_id: ctx.environmentId, user: { $in: userChunk }, resource_instance: { $in: instanceChunk } },
        { fields: ['user', 'resource_instance'] },
      );
      for (const a of assignments) {
        const key = pairKey(a.user, a.resource_instance ?? '');
        if (wanted.has(key)) found.add(key);
      }
    }
  }
  return found;
}
