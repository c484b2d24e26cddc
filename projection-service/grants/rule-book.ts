import type { GrantStore } from '../../shared/read-stores/grants/port';
import { RuleIndex } from '../../shared/read-models/grants/rule-index';

/**
 * Loads and stores each environment's RuleIndex. Cached in memory between
 * events; the cache is dropped whenever events arrive out of order (a replay
 * after a failed batch), since the stored copy is then the truth.
 */
export class RuleBook {
  private readonly cache = new Map<string, RuleIndex>();
  private lastPosition = 0;

  constructor(private readonly grants: GrantStore) {}

  /** Call before applying each event. */
  observe(position: number): void {
    if (position <= this.lastPosition) this.cache.clear();
    this.lastPosition = position;
  }

  /** Call before reading for the event at `position` ahead of applying it (a run of expiries asked whether it can be taken at once). */
  peek(position: number): void {
    if (position <= this.lastPosition) this.cache.clear();
  }

  async of(environmentId: string): Promise<RuleIndex> {
    const cached = this.cache.get(environmentId);
    if (cached) return cached;
    const index = RuleIndex.of(await this.grants.rules(environmentId));
    this.cache.set(environmentId, index);
    return index;
  }

  /** Stores the index if it changed since it was loaded or last stored. */
  async saveIfChanged(environmentId: string, index: RuleIndex): Promise<void> {
    if (!index.changed) return;
    await this.grants.putRules(index.toDoc(environmentId));
    index.changed = false;
  }

  /** Forgets the cache (after a failure, the stored copy is the truth). */
  reset(): void {
    this.cache.clear();
  }
}
