import type { Collection, Filter, FindOptions } from '../../shared/docstore/port';
import { inForce } from '../../shared/read-models/grants/ends';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import { ReadOnlyGrants } from './read-only-grants';

/**
 * The stored grants still in force at an instant: a grant whose end (the first end along its
 * support, which is the support that ends last: docs/expiring-access.md) is at or before it is
 * no grant any more, though the projection removes it only on the expiry's event, a moment
 * later. Such rows are few and short-lived, so they are dropped here rather than by the query
 * (a grant without an end stores null, which a store's range would drop too); a read asking for
 * `limit` grants reads on past the dropped ones until it has them.
 */
export class InForceGrants extends ReadOnlyGrants {
  constructor(
    private readonly stored: Collection<GrantDoc>,
    private readonly instant: () => number,
  ) {
    super('the grants in force are read-only: the projection writes the stored ones');
  }

  async get(id: string): Promise<GrantDoc | null> {
    const grant = await this.stored.get(id);
    return grant && inForce(grant.expires_at, this.now()) ? grant : null;
  }

  override count(filter: Filter): Promise<number> {
    // An upper bound (ended rows counted) is all its readers need: a budget, or whether there are any.
    return this.stored.count(filter);
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<GrantDoc[]> {
    const now = this.now();
    // The end is needed to judge a row, whatever fields the reader asked for.
    const asked =
      options.fields && !options.fields.includes('expires_at') ? { ...options, fields: [...options.fields, 'expires_at'] } : options;
    const rows = await this.stored.find(filter, asked);
    const kept = rows.filter((g) => inForce(g.expires_at, now));
    const limit = options.limit;
    if (limit === undefined || kept.length === rows.length || rows.length < limit) return kept;
    // Some of a full page had ended: the rows after it, until the page is full or none are left.
    let skip = (options.skip ?? 0) + rows.length;
    while (kept.length < limit) {
      const wanted = limit - kept.length;
      const more = await this.stored.find(filter, { ...asked, skip, limit: wanted });
      kept.push(...more.filter((g) => inForce(g.expires_at, now)));
      if (more.length < wanted) break;
      skip += more.length;
    }
    return kept.slice(0, limit);
  }

  private now(): string {
    return new Date(this.instant()).toISOString();
  }
}
