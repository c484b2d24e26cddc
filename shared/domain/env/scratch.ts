import type { IdStore } from './fact-sets';
import { AssignmentSet, IdSlab, TupleSet, type EnvState } from './state';

const readOnly = (store: IdStore): IdStore => (store instanceof IdSlab ? store.readOnly() : store);

const DELETED = Symbol('deleted');

/**
 * A copy-on-write view of a Map: reads fall through to the base map, writes
 * and deletes stay in the overlay. The base is never modified, so building one
 * is O(1) and it costs only what is written to it.
 */
export class OverlayMap<K, V> implements Map<K, V> {
  private readonly changes = new Map<K, V | typeof DELETED>();
  private count: number;

  constructor(private readonly base: ReadonlyMap<K, V>) {
    this.count = base.size;
  }

  get size(): number {
    return this.count;
  }

  get [Symbol.toStringTag](): string {
    return 'OverlayMap';
  }

  // Values are never undefined (set refuses it), so one lookup in `changes` tells
  // whether the key was touched: a bulk makes thousands of these calls.
  has(key: K): boolean {
    const changed = this.changes.get(key);
    return changed === undefined ? this.base.has(key) : changed !== DELETED;
  }

  get(key: K): V | undefined {
    const changed = this.changes.get(key);
    if (changed === undefined) return this.base.get(key);
    return changed === DELETED ? undefined : changed;
  }

  set(key: K, value: V): this {
    if (value === undefined) throw new TypeError('OverlayMap does not hold undefined values');
    if (!this.has(key)) this.count += 1;
    this.changes.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    if (!this.has(key)) return false;
    this.changes.set(key, DELETED);
    this.count -= 1;
    return true;
  }

  clear(): void {
    for (const key of this.keys()) this.changes.set(key, DELETED);
    this.count = 0;
  }

  *entries(): MapIterator<[K, V]> {
    for (const entry of this.base) if (!this.changes.has(entry[0])) yield entry;
    for (const [key, value] of this.changes) if (value !== DELETED) yield [key, value];
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/**
 * A scratch state over `state`: deciding and evolving against it never touches
 * `state`. Valid for facts events only, whose evolve replaces map entries with
 * fresh objects; schema events mutate role objects in place, which the overlay
 * does not copy.
 */
export function scratchOf(state: EnvState): EnvState {
  const instances = new OverlayMap(state.instances);
  return {
    resources: state.resources,
    roles: state.roles,
    relations: state.relations,
    tenants: new OverlayMap(state.tenants),
    users: new OverlayMap(state.users),
    instances,
    // Ids: read from the state's slab, new ones kept as strings (readOnly), so the state's slab is never written.
    assignments: new AssignmentSet(new OverlayMap(state.assignments.ids), readOnly(state.assignments.idStore)),
    // Tenants come from the scratch's instances, so an instance created earlier in the bulk counts.
    tuples: new TupleSet(
      new OverlayMap(state.tuples.ids),
      readOnly(state.tuples.idStore),
      new OverlayMap(state.tuples.tenants),
      (ref) => instances.get(ref)?.tenant,
    ),
    ids: new OverlayMap(state.ids),
    // Bulk commands are facts that never change ABAC objects: shared as they are.
    abac: state.abac,
    // Nor proxy configs.
    proxyConfigs: state.proxyConfigs,
    // A bulk delete of a tenant or an instance deletes the invites naming it (cascade.ts).
    invites: { byKey: new OverlayMap(state.invites.byKey), keyOfId: new OverlayMap(state.invites.keyOfId) },
    // Nor assertions.
    assertions: state.assertions,
    ends: new OverlayMap(state.ends),
  };
}
