/**
 * The environment's tuples and role assignments, kept compactly: an
 * environment may hold millions of them, and the decider needs little more
 * than "does this one exist, and what is its id". Each is stored as one map
 * entry, key → id (see IdSlab); every other field is part of the key (schema,
 * tenant and instance keys never contain `|`; a user key may, and is read as
 * whatever precedes the other fields), so the full object is rebuilt only
 * when asked for (a delete's event, a cascade's matches).
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
export const assignmentKey = (a: {
  user: string;
  role: string;
  resource: string | null;
  tenant: string;
  resourceInstance: string | null;
}): string => [a.user, a.role, a.resource ?? '', a.tenant, a.resourceInstance ?? ''].join('|');

/** A fact's id as a map entry holds it: a slot in an IdSlab, or the id itself. */
export type StoredId = number | string;

/** What a fact set keeps its entries in: a Map, or a copy-on-write overlay of one. */
type Store<V = StoredId> = Map<string, V>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_BYTES = 16;

/** An IdSlab as plain data (Buffer, number, array), for snapshots. */
export interface IdSlabData {
  bytes: Buffer;
  /** Slots handed out so far. */
  used: number;
  /** Slots released by deletes, to hand out again. */
  free: number[];
}

export const emptyIdSlab = (): IdSlabData => ({ bytes: Buffer.alloc(UUID_BYTES * 1024), used: 0, free: [] });

/** Where a fact set keeps ids: the state's IdSlab, or a read-only view of it (a scratch never touches its base). */
export interface IdStore {
  store(id: string): StoredId;
  read(stored: StoredId): string;
  release(stored: StoredId): void;
}

/**
 * Fact ids as 16 bytes each, outside the V8 heap. The API mints lowercase
 * UUIDs, which as strings cost 56 bytes of heap apiece (a million tuples:
 * 53 MiB); a map entry holds the id's slot here instead, a small integer that
 * V8 stores without an allocation. An id of any other form (a test's, an
 * imported one) stays a string in its entry.
 */
export class IdSlab implements IdStore {
  constructor(readonly data: IdSlabData) {}

  store(id: string): StoredId {
    if (!UUID.test(id)) return id;
    const slot = this.data.free.pop() ?? this.data.used++;
    if ((slot + 1) * UUID_BYTES > this.data.bytes.length) {
      const grown = Buffer.alloc(this.data.bytes.length * 2);
      this.data.bytes.copy(grown);
      this.data.bytes = grown;
    }
    this.data.bytes.write(id.replace(/-/g, ''), slot * UUID_BYTES, UUID_BYTES, 'hex');
    return slot;
  }

  read(stored: StoredId): string {
    if (typeof stored === 'string') return stored;
    const hex = this.data.bytes.toString('hex', stored * UUID_BYTES, (stored + 1) * UUID_BYTES);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  release(stored: StoredId): void {
    if (typeof stored === 'number') this.data.free.push(stored);
  }

  /** Reads the slab, never writes it: new ids stay strings, deletes free nothing the base still holds. */
  readOnly(): IdStore {
    return { store: (id) => id, read: (stored) => this.read(stored), release: () => undefined };
  }
}

abstract class FactSet<T extends { id: string }> implements ReadonlyMap<string, T> {
  /**
   * @param ids fact key → fact id (as stored by `idStore`)
   */
  constructor(
    readonly ids: Store,
    readonly idStore: IdStore,
  ) {}

  /** Adds or replaces the entry for `key`. */
  protected put(key: string, id: string): void {
    const previous = this.ids.get(key);
    if (previous !== undefined) this.idStore.release(previous);
    this.ids.set(key, this.idStore.store(id));
  }

  delete(key: string): boolean {
    const stored = this.ids.get(key);
    if (stored === undefined) return false;
    this.idStore.release(stored);
    return this.ids.delete(key);
  }

  protected abstract materialize(key: string, id: string): T;

  get size(): number {
    return this.ids.size;
  }

  has(key: string): boolean {
    return this.ids.has(key);
  }

  get(key: string): T | undefined {
    const stored = this.ids.get(key);
    return stored === undefined ? undefined : this.materialize(key, this.idStore.read(stored));
  }

  keys(): MapIterator<string> {
    return this.ids.keys();
  }

  *entries(): MapIterator<[string, T]> {
    for (const [key, stored] of this.ids) yield [key, this.materialize(key, this.idStore.read(stored))];
  }

  *values(): MapIterator<T> {
    for (const [key, stored] of this.ids) yield this.materialize(key, this.idStore.read(stored));
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
    this.put(assignmentKey(a), a.id);
  }

  /** The key of every assignment on one instance, without rebuilding the others. */
  *keysOnInstance(ref: string): MapIterator<string> {
    const suffix = `|${ref}`;
    for (const key of this.ids.keys()) if (key.endsWith(suffix)) yield key;
  }

  /** Every assignment of one user (a key prefix; a longer user key that starts the same is told apart when rebuilt). */
  *ofUser(user: string): Generator<AssignmentState> {
    const prefix = `${user}|`;
    for (const key of this.ids.keys()) {
      if (!key.startsWith(prefix)) continue;
      const assignment = this.get(key);
      if (assignment?.user === user) yield assignment;
    }
  }

  protected materialize(key: string, id: string): AssignmentState {
    // Read from the right: role, resource, tenant and instance keys never hold a `|`, but a user's key
    // is any string (users are created by their first assignment, and Permit allows e-mail-like keys).
    const parts = key.split('|');
    const resourceInstance = parts.pop() ?? '';
    const tenant = parts.pop() ?? '';
    const resource = parts.pop() ?? '';
    const role = parts.pop() ?? '';
    return { id, user: parts.join('|'), role, resource: resource || null, tenant, resourceInstance: resourceInstance || null };
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
    idStore: IdStore,
    /** tupleKey → tenant, only for tuples whose tenant is not their subject instance's. */
    readonly tenants: Store<string>,
    private readonly instanceTenant: (ref: string) => string | undefined,
  ) {
    super(ids, idStore);
  }

  add(t: TupleState): void {
    const key = tupleKey(t);
    this.put(key, t.id);
    if (this.instanceTenant(t.subject) !== t.tenant) this.tenants.set(key, t.tenant);
    else if (this.tenants.size > 0) this.tenants.delete(key);
  }

  override delete(key: string): boolean {
    if (this.tenants.size > 0) this.tenants.delete(key);
    return super.delete(key);
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
