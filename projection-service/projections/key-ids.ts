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
  private readonly ids = new Map<string, string>();
  private lastPosition = 0;

  constructor(private readonly maxEntries = 200_000) {}

  /** Call before applying each event. */
  observe(position: number): void {
    if (position <= this.lastPosition) this.ids.clear();
    this.lastPosition = position;
  }

  /** The id of `kind` `key` in `environmentId`, from the cache or `lookup` (which returns '' when not found). */
  async of(environmentId: string, kind: string, key: string, lookup: () => Promise<string>): Promise<string> {
    const cacheKey = entryKey(environmentId, kind, key);
    const cached = this.ids.get(cacheKey);
    if (cached !== undefined) return cached;
    const id = await lookup();
    if (id !== '') this.remember(cacheKey, id);
    return id;
  }

  /** Records an id the projection has just written (a create event carries it). */
  set(environmentId: string, kind: string, key: string, id: string): void {
    this.remember(entryKey(environmentId, kind, key), id);
  }

  forget(environmentId: string, kind: string, key: string): void {
    this.ids.delete(entryKey(environmentId, kind, key));
  }

  /** Forgets everything (a schema object was deleted: rare, and its dependants' keys may go with it). */
  clear(): void {
    this.ids.clear();
  }

  private remember(cacheKey: string, id: string): void {
    // Bounded: an import of millions of objects must not keep every id in memory.
    if (this.ids.size >= this.maxEntries) this.ids.clear();
    this.ids.set(cacheKey, id);
  }
}

const entryKey = (environmentId: string, kind: string, key: string) => `${environmentId}\u0000${kind}\u0000${key}`;
