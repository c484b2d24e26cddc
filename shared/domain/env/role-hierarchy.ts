/**
 * Role inheritance (`extends`) as a graph over the role keys of one scope (a
 * resource type's roles, or the top-level roles). `A extends B` makes B an
 * *ancestor* of A and A a *descendant* of B: A has B's permissions (Permit's
 * wording: "role_id extends parent_role_id"; a cycle is refused when role_id
 * is already an ancestor of the parent).
 */

/** The roles `key` extends, directly. */
export type ExtendsOf = (key: string) => readonly string[];

/** Every role reachable from `start` along `next` (transitively), `start` excluded, in breadth-first order. */
function reachable(start: string, next: ExtendsOf): string[] {
  const seen = new Set<string>([start]);
  const out: string[] = [];
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const n of next(queue[i]!)) {
      if (seen.has(n)) continue;
      seen.add(n);
      out.push(n);
      queue.push(n);
    }
  }
  return out;
}

/** The roles whose permissions `key` inherits: what it extends, what those extend, and so on. */
export const ancestorsOf = (key: string, extendsOf: ExtendsOf): string[] => reachable(key, extendsOf);

/** The roles that inherit `key`'s permissions, transitively. */
export function descendantsOf(key: string, roles: Iterable<string>, extendsOf: ExtendsOf): string[] {
  const extendedBy = new Map<string, string[]>();
  for (const role of roles) {
    for (const parent of extendsOf(role)) extendedBy.set(parent, [...(extendedBy.get(parent) ?? []), role]);
  }
  return reachable(key, (k) => extendedBy.get(k) ?? []);
}

/**
 * The cycle `key` would close if it extended `parents` (`[key, …, key]`), or
 * null. Only a path from one of the parents back to `key` can close one: the
 * rest of the graph is acyclic already.
 */
export function cycleThrough(key: string, parents: readonly string[], extendsOf: ExtendsOf): string[] | null {
  const next = (k: string) => (k === key ? parents : extendsOf(k));
  const path: string[] = [];
  const onPath = new Set<string>();
  const done = new Set<string>();
  const visit = (k: string): boolean => {
    if (onPath.has(k)) return k === key;
    if (done.has(k)) return false;
    onPath.add(k);
    path.push(k);
    for (const n of next(k)) if (visit(n)) return true;
    path.pop();
    onPath.delete(k);
    done.add(k);
    return false;
  };
  return visit(key) ? [...path, key] : null;
}

/**
 * Each role's own permissions plus those of every role it extends
 * (transitively), looked up among `roles` of the same scope (`resource`,
 * absent for top-level roles): callers pass every role of the scopes they ask about.
 */
export function inheritedPermissions<R extends { key: string; permissions: string[]; extends?: string[]; resource?: string | null }>(
  roles: readonly R[],
): R[] {
  if (!roles.some((r) => (r.extends ?? []).length > 0)) return [...roles];
  const scoped = (resource: string | null | undefined, key: string) => `${resource ?? ''}#${key}`;
  const byKey = new Map(roles.map((r) => [scoped(r.resource, r.key), r]));
  return roles.map((r) => {
    const extendsOf: ExtendsOf = (k) => byKey.get(scoped(r.resource, k))?.extends ?? [];
    const ancestors = ancestorsOf(r.key, extendsOf);
    if (ancestors.length === 0) return r;
    const permissions = new Set(r.permissions);
    for (const a of ancestors) for (const p of byKey.get(scoped(r.resource, a))?.permissions ?? []) permissions.add(p);
    return { ...r, permissions: [...permissions] };
  });
}
