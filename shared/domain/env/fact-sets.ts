/**
 * The environment's tuples and role assignments, kept compactly: an
 * environment may hold millions of them, and the decider needs little more
 * than "does this one exist, and what is its id". Each is stored as one map
 * entry, key → id; every other field is part of the key (keys and instance
 * refs never contain `|`), so the full object is rebuilt only when asked for
 * (a delete's event, a cascade's matches).
 *
 * Both classes read like a ReadonlyMap of full objects, so readers do not
 * care how they are stored.
 */

export interface AssignmentState {
  id: string;
  user: string;
  role: string;
  resource: string | null;
  tenant: string;
  resourceInstance: string | null;
}
export interface TupleState {
  id: string;
  subject: string;
  relation: string;
  object: string;
  tenant: string;
}

/**
 * Keys are built with join(), which yields one flat string. A template literal
 * or `+` yields a tree of cons strings that V8 flattens on first hashing but
 * keeps alive around the flat copy: about twice the memory per key.
 */
export const tupleKey = (t: { subject: string; relation: string; object: string }): string => [t.subject, t.relation, t.object].join('|');
export const assignmentKey = (a: { user: string; role: string; resource: string | null; tenant: string; resourceInstance: string | null }): string =>
  [a.user, a.role, a.resource ?? '', a.tenant, a.resourceInstance ?? ''].join('|');

/** What a map-like fact set reads from: a Map, or a copy-on-write overlay of one. */
type Store = Map<string, string>;

abstract class FactSet<T extends { id: string }> implements ReadonlyMap<string, T> {
  /** @param ids fact key → fact id */
  constructor(readonly ids: Store) {}

  protected abstract materialize(key: string, id: string): T;

  get size(): number {
    return this.ids.size;
  }

  has(key: string): boolean {
    return this.ids.has(key);
  }

  get(key: string): T | undefined {
    const id = this.ids.get(key);
    return id === undefined ? undefined : this.materialize(key, id);
  }

  keys(): MapIterator<string> {
    return this.ids.keys();
  }

  *entries(): MapIterator<[string, T]> {
    for (const [key, id] of this.ids) yield [key, this.materialize(key, id)];
  }

  *values(): MapIterator<T> {
    for (const [key, id] of this.ids) yield this.materialize(key, id);
  }

  [Symbol.iterator](): MapIterator<[string, T]> {
    return this.entries();
  }

  forEach(callback: (value: T, key: string, map: ReadonlyMap<string, T>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/** Role assignments: assignmentKey → id. */
export class AssignmentSet extends FactSet<AssignmentState> {
  add(a: AssignmentState): void {
    this.ids.set(assignmentKey(a), a.id);
  }

  delete(key: string): boolean {
    return this.ids.delete(key);
  }

  /** The key of every assignment on one instance, without rebuilding the others. */
  *keysOnInstance(ref: string): MapIterator<string> {
    const suffix = `|${ref}`;
    for (const key of this.ids.keys()) if (key.endsWith(suffix)) yield key;
  }

  protected materialize(key: string, id: string): AssignmentState {
    const [user = '', role = '', resource = '', tenant = '', resourceInstance = ''] = key.split('|');
    return { id, user, role, resource: resource || null, tenant, resourceInstance: resourceInstance || null };
  }
}

/**
 * Relationship tuples: tupleKey → id. A tuple's tenant is not in its key: it is
 * its subject instance's tenant (a tuple is refused across tenants, and
 * deleting an instance deletes its tuples first). A tuple folded from the log
 * whose tenant differs anyway keeps it in `tenants`, so it is never lost.
 */
export class TupleSet extends FactSet<TupleState> {
  constructor(
    ids: Store,
    /** tupleKey → tenant, only for tuples whose tenant is not their subject instance's. */
    readonly tenants: Store,
    private readonly instanceTenant: (ref: string) => string | undefined,
  ) {
    super(ids);
  }

  add(t: TupleState): void {
    const key = tupleKey(t);
    this.ids.set(key, t.id);
    if (this.instanceTenant(t.subject) !== t.tenant) this.tenants.set(key, t.tenant);
    else if (this.tenants.size > 0) this.tenants.delete(key);
  }

  delete(key: string): boolean {
    if (this.tenants.size > 0) this.tenants.delete(key);
    return this.ids.delete(key);
  }

  /** The key of every tuple with `ref` as its subject or object, without rebuilding the others. */
  *keysTouching(ref: string): MapIterator<string> {
    const prefix = `${ref}|`;
    const suffix = `|${ref}`;
    for (const key of this.ids.keys()) if (key.startsWith(prefix) || key.endsWith(suffix)) yield key;
  }

  protected materialize(key: string, id: string): TupleState {
    const [subject = '', relation = '', object = ''] = key.split('|');
    const tenant = this.tenants.get(key) ?? this.instanceTenant(subject);
    // Unreachable through the decider (instances go after their tuples); never invent a tenant.
    if (tenant === undefined) throw new Error(`Relationship tuple '${key}' has no subject instance to take its tenant from`);
    return { id, subject, relation, object, tenant };
  }
}
