import type { Filter, FindOptions } from '../../shared/docstore/port';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import type { GrantNarrowing, GrantStore } from '../../shared/read-stores/grants/port';
import { byteOrder } from '../../shared/docstore/value-order';
import { ReadOnlyGrants } from './read-only-grants';

/**
 * The stored grants as the grant queries read them (EffectiveGrants, InForceGrants: the filters a
 * Collection takes, which GrantsAsOf answers too for the past), each filter they ask on one
 * operation of the grants' store (docs/read-stores.md):
 * - `id: {$in}` alone: byIds;
 * - `id` a range (`$gt`, `$lt`) of one user's ids: userRange, its `limit` and `skip` there;
 * - `user` and `instance` (a key or `$in`): userOn;
 * - `instance` with `user` absent, after one (`$gt`) or among some (`$in`): holders, its `limit` there;
 * - `environment_id` alone: ofEnvironment.
 * `role`, `tenant` and `resource` (a value or `$in`) narrow any of them. Any other filter is
 * refused, so that a new reader gets a named operation of the store rather than a scan. Rows come
 * back whole (`fields` is not needed to keep a read on its index), sorted and cut as asked.
 */
export class StoredGrantReads extends ReadOnlyGrants {
  constructor(private readonly store: GrantStore) {
    super('the stored grants are read-only here: the projection writes them');
  }

  get(id: string): Promise<GrantDoc | null> {
    return this.store.get(id);
  }

  override async count(filter: Filter): Promise<number> {
    const { id } = filter;
    if (isRange(id)) return this.store.countUserRange({ after: id.$gt, before: id.$lt }, narrowingOf(filter));
    return (await this.find(filter)).length;
  }

  async find(asked: Filter, options: FindOptions = {}): Promise<GrantDoc[]> {
    const filter: Filter = Object.fromEntries(Object.entries(asked).filter(([, condition]) => condition !== undefined));
    const unknown = Object.keys(filter).filter((field) => !FIELDS.has(field));
    if (unknown.length > 0) throw new Error(`stored grants are not read by ${unknown.join(', ')}`);
    const { id, environment_id: environmentId, user, instance } = filter;
    const narrowing = narrowingOf(filter);
    const { limit, skip, sortBy } = options;

    if (id !== undefined) {
      if (isIn(id) && Object.keys(filter).length === 1) return cut(await this.store.byIds(id.$in.map(String)), sortBy, limit, skip);
      if (isRange(id) && instance === undefined) {
        const rows = await this.store.userRange(
          { after: id.$gt, before: id.$lt },
          narrowing,
          sortBy === undefined || sortBy === 'id' ? { limit, skip } : {},
        );
        const kept = typeof user === 'string' ? rows.filter((g) => g.user === user) : rows;
        return sortBy === undefined || sortBy === 'id' ? kept : cut(kept, sortBy, limit, skip);
      }
    } else if (typeof environmentId === 'string') {
      if (typeof user === 'string' && typeof instance === 'string' && checksRead(filter, options)) {
        const held = await this.store.rolesOn(environmentId, user, instance, narrowing.roles);
        return cut(held as unknown as GrantDoc[], sortBy, limit, skip);
      }
      if (typeof user === 'string' && (typeof instance === 'string' || isIn(instance))) {
        const instances = typeof instance === 'string' ? [instance] : instance.$in.map(String);
        return cut(await this.store.userOn(environmentId, user, instances, narrowing), sortBy, limit, skip);
      }
      if (typeof instance === 'string' && (user === undefined || isAfter(user) || isIn(user))) {
        const inUserOrder = sortBy === undefined || sortBy === 'user';
        const rows = await this.store.holders(environmentId, instance, {
          ...narrowing,
          ...(isAfter(user) ? { afterUser: user.$gt } : {}),
          ...(isIn(user) ? { users: user.$in.map(String) } : {}),
          ...(inUserOrder && limit !== undefined ? { limit: limit + (skip ?? 0) } : {}),
        });
        return inUserOrder ? rows.slice(skip ?? 0) : cut(rows, sortBy, limit, skip);
      }
      if (user === undefined && instance === undefined && Object.keys(filter).length === 1)
        return cut(await this.store.ofEnvironment(environmentId), sortBy, limit, skip);
    }
    throw new Error(`stored grants are not read by this filter: ${JSON.stringify(filter)}`);
  }
}

const FIELDS = new Set(['id', 'environment_id', 'user', 'instance', 'role', 'tenant', 'resource']);

/** The fields of a grant that GrantStore.rolesOn gives. */
const HELD_ROLE_FIELDS = new Set(['id', 'role', 'expires_at']);

/**
 * Whether a read of a user's grants on one instance asks only for what a check compares (its roles
 * and their ends, narrowed by role at most): then the store's index answers it alone (rolesOn), and
 * the rows come back as those fields, as a read with `fields` does.
 */
const checksRead = (filter: Filter, options: FindOptions): boolean =>
  options.fields !== undefined &&
  options.fields.every((field) => HELD_ROLE_FIELDS.has(field)) &&
  filter.tenant === undefined &&
  filter.resource === undefined;

/** The filter's conditions on role, tenant and resource, as the store's narrowing. */
function narrowingOf(filter: Filter): GrantNarrowing {
  const narrowing: GrantNarrowing = {};
  const listOf = (condition: Filter[string]): string[] => {
    if (isIn(condition)) return condition.$in.map(String);
    if (condition !== null && typeof condition === 'object')
      throw new Error(`stored grants are not narrowed by ${JSON.stringify(condition)}`);
    return [String(condition)];
  };
  if (filter.role !== undefined) narrowing.roles = listOf(filter.role);
  if (filter.tenant !== undefined) narrowing.tenants = listOf(filter.tenant);
  if (filter.resource !== undefined) narrowing.resources = listOf(filter.resource);
  return narrowing;
}

/** Rows sorted by `sortBy` (then id), `skip` of them dropped and `limit` kept. */
function cut(rows: GrantDoc[], sortBy: string | undefined, limit: number | undefined, skip: number | undefined): GrantDoc[] {
  if (sortBy !== undefined) {
    const key = (g: GrantDoc) => (g as unknown as Record<string, string | undefined>)[sortBy] ?? '';
    rows.sort((a, b) => byteOrder(key(a), key(b)) || byteOrder(a.id, b.id));
  }
  const from = skip ?? 0;
  return limit === undefined ? rows.slice(from) : rows.slice(from, from + limit);
}

const isIn = (c: Filter[string] | undefined): c is { $in: Array<string | number | boolean | null> } =>
  c !== null && typeof c === 'object' && '$in' in c;
const isAfter = (c: Filter[string] | undefined): c is { $gt: string } =>
  c !== null && typeof c === 'object' && Object.keys(c).length === 1 && '$gt' in c;
const isRange = (c: Filter[string] | undefined): c is { $gt: string; $lt: string } =>
  c !== null && typeof c === 'object' && '$gt' in c && '$lt' in c && typeof c.$gt === 'string' && typeof c.$lt === 'string';
