import type { Filter } from '../../shared/docstore/port';
import type { Finder } from '../../shared/read-models/grants/fact-finders';
import { compareEnds, inForce } from '../../shared/read-models/grants/ends';
import type { AssignmentDoc } from '../../shared/read-models/read-models';
import { chunks, unique } from './types';

/** A user on a resource instance. */
export interface UserOn {
  user: string;
  instance: string;
}

/** The columns of an assignment the condition reads. */
type DirectRole = Pick<AssignmentDoc, 'user' | 'resource_instance' | 'expires_at'>;

/**
 * The users' direct role assignments on resource instances, as `no_direct_roles_on_object`
 * (docs/grants.md §1.2) reads them at an instant: a direct role holds the user's guarded roles on
 * that instance back until its end, not until its expiry event. The derived-grants projection
 * gives a guarded role back when it applies the expiry event of the user's last direct role there
 * (projection-service/grants/conditions.ts), a moment after the end; in between, the stored grants
 * lack it. Those (user, instance) are exactly where a direct role has ended but is still stored,
 * so this reads the assignments as stored, ended ones included (in-force.ts storedBeneath), and
 * judges their ends itself.
 */
export class DirectRolesAt {
  constructor(
    private readonly stored: Finder<AssignmentDoc>,
    private readonly instant: () => number,
  ) {}

  /**
   * The (user, instance) where a direct role ended at or before now and is still stored, among the
   * assignments `narrowing` selects (a user's, an instance's, or the whole environment's). Few:
   * each is gone once its expiry event is projected.
   */
  async ended(environmentId: string, narrowing: Filter): Promise<UserOn[]> {
    const rows = await this.stored.find(
      { environment_id: environmentId, ...narrowing, _ends: { $lte: this.now() } },
      { fields: ['user', 'resource_instance'] },
    );
    const pairs = new Map<string, UserOn>();
    for (const row of rows)
      if (row.resource_instance !== null)
        pairs.set(pairKey(row.user, row.resource_instance), { user: row.user, instance: row.resource_instance });
    return [...pairs.values()];
  }

  /**
   * Of `pairs`, those where the user's direct roles on the instance have all ended though some is
   * still stored: nothing holds their guarded roles back there any more, and the stored grants do
   * not show it yet.
   */
  async released(environmentId: string, pairs: UserOn[]): Promise<UserOn[]> {
    const now = this.now();
    const endedHere = new Set<string>();
    const heldHere = new Set<string>();
    for (const row of await this.rowsOf(environmentId, pairs)) {
      const key = pairKey(row.user, row.resource_instance!);
      (inForce(row.expires_at, now) ? heldHere : endedHere).add(key);
    }
    return pairs.filter((p) => endedHere.has(pairKey(p.user, p.instance)) && !heldHere.has(pairKey(p.user, p.instance)));
  }

  /** Of `pairs`, those where the user holds a direct role on the instance now (one in force). */
  async holding(environmentId: string, pairs: UserOn[]): Promise<UserOn[]> {
    const now = this.now();
    const held = new Set<string>();
    for (const row of await this.rowsOf(environmentId, pairs))
      if (inForce(row.expires_at, now)) held.add(pairKey(row.user, row.resource_instance!));
    return pairs.filter((p) => held.has(pairKey(p.user, p.instance)));
  }

  /**
   * Until when the user's direct roles on the instance hold their guarded roles back: the last of
   * their ends, when every one of them ends (undefined when one never does, or none is held).
   */
  async holdBackUntil(environmentId: string, user: string, instance: string): Promise<string | undefined> {
    const now = this.now();
    const held = (await this.rowsOf(environmentId, [{ user, instance }])).filter((row) => inForce(row.expires_at, now));
    if (held.length === 0) return undefined;
    const last = held.map((row) => row.expires_at).reduce((a, b) => (compareEnds(a, b) >= 0 ? a : b));
    return last ?? undefined;
  }

  /** The stored direct assignments (ended ones too) of the pairs' users on the pairs' instances (a few more when several of each: the caller matches pairs). */
  private async rowsOf(environmentId: string, pairs: UserOn[]): Promise<DirectRole[]> {
    if (pairs.length === 0) return [];
    const wanted = new Set(pairs.map((p) => pairKey(p.user, p.instance)));
    const rows: DirectRole[] = [];
    const only = (values: string[]) => (values.length === 1 ? values[0]! : { $in: values });
    for (const users of chunks(unique(pairs.map((p) => p.user))))
      for (const instances of chunks(unique(pairs.map((p) => p.instance)))) {
        const found = (await this.stored.find(
          { environment_id: environmentId, user: only(users), resource_instance: only(instances) },
          { fields: ['user', 'resource_instance', 'expires_at'] },
        )) as DirectRole[];
        rows.push(...found.filter((row) => row.resource_instance !== null && wanted.has(pairKey(row.user, row.resource_instance))));
      }
    return rows;
  }

  private now(): string {
    return new Date(this.instant()).toISOString();
  }
}

/** The key of a (user, instance) pair in a set. */
export const pairKey = (user: string, instance: string) => `${user}\u0000${instance}`;
