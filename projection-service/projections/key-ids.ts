/**
 * Remembers the ids the facts projection looks up by key (a tenant, an
 * instance, a user, a resource, a role, a relation), so that a tuple or an
 * assignment costs map lookups instead of four indexed queries.
 *
 * Only ids that were found are kept (a miss is asked again next time), and
 * keys are immutable, so an entry can only go stale when its object is
 * deleted: the projection forgets it on the delete event (`forget…`). The
 * entries are tied to the log position they were read at: when events arrive
 * out of order (a replay after a failed batch rolled back), everything is
 * dropped, since the cache may hold ids the rollback removed.
 */
export class KeyIds {
  /** environment → kind → key → id: nested, so a lookup builds no composite key. */
  private readonly ids = new Map<string, Map<string, Map<string, string>>>();
  private size = 0;
  private lastPosition = 0;

  constructor(private readonly maxEntries = 200_000) {}

  /** Call before applying each event. */
  observe(position: number): void {
    if (position <= this.lastPosition) this.clear();
    this.lastPosition = position;
  }

  /**
   * The id of `kind` `key` in `environmentId`, from the cache or `lookup`
   * (which returns '' when not found). A cached id comes back as is, not as a
   * promise: the common case costs no allocation.
   */
  of(environmentId: string, kind: string, key: string, lookup: () => Promise<string>): string | Promise<string> {
    return this.ids.get(environmentId)?.get(kind)?.get(key) ?? this.load(environmentId, kind, key, lookup);
  }

  /** Records an id the projection has just written (a create event carries it). */
  set(environmentId: string, kind: string, key: string, id: string): void {
    // Bounded: an import of millions of objects must not keep every id in memory.
    if (this.size >= this.maxEntries) this.clear();
    let kinds = this.ids.get(environmentId);
    if (!kinds) this.ids.set(environmentId, (kinds = new Map<string, Map<string, string>>()));
    let keys = kinds.get(kind);
    if (!keys) kinds.set(kind, (keys = new Map<string, string>()));
    if (!keys.has(key)) this.size += 1;
    keys.set(key, id);
  }

  forget(environmentId: string, kind: string, key: string): void {
    if (this.ids.get(environmentId)?.get(kind)?.delete(key)) this.size -= 1;
  }

  /** Forgets everything (a schema object was deleted: rare, and its dependants' keys may go with it). */
  clear(): void {
    this.ids.clear();
    this.size = 0;
  }

  private async load(environmentId: string, kind: string, key: string, lookup: () => Promise<string>): Promise<string> {
    const id = await lookup();
    if (id !== '') this.set(environmentId, kind, key, id);
    return id;
  }
}
