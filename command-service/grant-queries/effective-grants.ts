import type { Collection, Filter, FindOptions } from '../../shared/docstore/port';
import type { Finder } from '../../shared/read-models/grants/fact-finders';
import type { GrantStore } from '../../shared/read-stores/grants/port';
import {
  carriesAlong,
  grantId,
  typeOf,
  userGrantIds,
  type EdgeDoc,
  type GrantDoc,
  type RuleEntry,
} from '../../shared/read-models/grants/model';
import { RuleIndex } from '../../shared/read-models/grants/rule-index';
import { byteOrder, findInMemory } from '../../shared/docstore/value-order';
import { ReadOnlyGrants } from './read-only-grants';
import { InForceGrants } from './in-force-grants';
import { StoredGrantReads } from './stored-grant-reads';
import { earlierEnd } from '../../shared/read-models/grants/ends';
import { chunks, unique } from './types';
import type { AssignmentDoc } from '../../shared/read-models/read-models';
import { DirectRolesAt, pairKey, type UserOn } from './ended-direct-roles';

/**
 * The grants as the queries read them: the stored rows, and the grants of sink roles that a stored
 * grant, a tuple and a rule imply. The projection stores no derived grant of a role no rule starts
 * from (docs/grants.md, "Sink roles"): a folder editor's 100,000 documents are 100,000 grants
 * implied by one row, not 100,000 rows.
 *
 * A read-only Collection for the filters the grant queries ask, always in one environment:
 * - a user's grants on one instance or on listed ones (`user`, `instance`: a key or `$in`), as a
 *   check asks;
 * - a user's grants in instance order (`user`, `instance` absent or `$gt`), as /user-permissions pages;
 * - the holders on one instance (`instance`, no `user`), as /authorized_users pages them by user;
 * - every grant of the environment (`environment_id` alone), for tests and audits.
 * `role`, `tenant` and `resource` may narrow any of them. Any other filter is refused, so that a new
 * reader cannot miss the implied grants without a test failing.
 *
 * An implied grant's reason is its support with the smallest parent grant id, so every read gives
 * the same one; it carries its parent grant's timestamps.
 *
 * Grants of guarded roles (`no_direct_roles_on_object`) given back by a direct role's end are
 * implied the same way until the projection stores them again (givenBack).
 */
export class EffectiveGrants extends ReadOnlyGrants {
  private readonly stored: Collection<GrantDoc>;
  private readonly rulesOf: (environmentId: string) => Promise<RuleIndex>;
  private readonly directRoles: DirectRolesAt | null;

  /**
   * @param edges the tuples in force (a view of the read models at the same instant: in-force.ts)
   * @param instant the instant the grants are read at (the service's clock): stored grants that
   * ended at or before it are none (InForceGrants)
   * @param assignments the role assignments as stored, ended ones included (in-force.ts
   * storedBeneath): where a user's direct roles on an instance have all ended, their guarded roles
   * there are given back at the end (givenBack). Without them, only once the projection has them.
   */
  constructor(
    grants: GrantStore,
    private readonly edges: Finder<EdgeDoc>,
    rulesOf?: (environmentId: string) => Promise<RuleIndex>,
    instant: () => number = Date.now,
    assignments?: Finder<AssignmentDoc>,
  ) {
    super('the effective grants are read-only: the projection writes the stored ones');
    this.stored = new InForceGrants(new StoredGrantReads(grants), instant);
    this.rulesOf = rulesOf ?? (async (environmentId) => RuleIndex.of(await grants.rules(environmentId)));
    this.directRoles = assignments ? new DirectRolesAt(assignments, instant) : null;
  }

  /**
   * Until when a deny of `roles` for the user on the instance may hold at the latest: where one of
   * them is a guarded role a rule derives and the user's direct roles there all end, the last of
   * those ends (from then the guarded role may be given back). Undefined: no end of the user's
   * undoes it (ends only take access away).
   */
  async denyHoldsUntil(environmentId: string, user: string, instance: string, roles: string[]): Promise<string | undefined> {
    if (this.directRoles === null) return undefined;
    const rules = await this.rulesOf(environmentId);
    const type = typeOf(instance);
    if (!roles.some((role) => rules.isGuarded(type, role) && rules.incoming(type, role).length > 0)) return undefined;
    return this.directRoles.holdBackUntil(environmentId, user, instance);
  }

  /** By id: an implied grant is never the parent of another (no rule starts from its role), so the stored rows are every grant asked for by id. */
  get(id: string): Promise<GrantDoc | null> {
    return this.stored.get(id);
  }

  async find(asked: Filter, options: FindOptions = {}): Promise<GrantDoc[]> {
    const filter: Filter = Object.fromEntries(Object.entries(asked).filter(([, condition]) => condition !== undefined));
    if (options.skip !== undefined) throw new Error('grants are read in keyset pages, not skipped');
    const environmentId = filter.environment_id;
    if (typeof environmentId !== 'string') throw new Error('grants are read per environment');
    const unknown = Object.keys(filter).filter((field) => !FILTER_FIELDS.has(field));
    if (unknown.length > 0) throw new Error(`grants are not read by ${unknown.join(', ')}`);
    const { user, instance } = filter;
    if (typeof user === 'string') {
      if (typeof instance === 'string' || isIn(instance)) return this.ofUserOn(environmentId, user, filter, options);
      if (instance === undefined || isAfter(instance)) return this.ofUserInOrder(environmentId, user, filter, options);
    } else if (user === undefined || isAfter(user) || isIn(user)) {
      if (typeof instance === 'string') return this.holdersOn(environmentId, instance, filter, options);
      if (instance === undefined && Object.keys(filter).length === 1) return this.everything(environmentId, options);
    }
    throw new Error(`grants are not read by this filter: ${JSON.stringify(filter)}`);
  }

  /** A user's grants on one instance, or on each of a list: the stored ones, then (if they do not already fill `limit`) the implied ones. */
  private async ofUserOn(environmentId: string, user: string, filter: Filter, options: FindOptions): Promise<GrantDoc[]> {
    const stored = await this.stored.find(filter, options);
    if (options.sortBy === undefined && options.limit !== undefined && stored.length >= options.limit) return stored;
    const rules = await this.rulesOf(environmentId);
    const instances = typeof filter.instance === 'string' ? [filter.instance] : (filter.instance as { $in: string[] }).$in;
    const implied: GrantDoc[] = [];
    for (const instance of unique(instances)) {
      const sinks = sinkRulesInto(rules, typeOf(instance), filter);
      if (sinks.length > 0) implied.push(...(await this.impliedOn(environmentId, rules, instance, sinks, { user })));
    }
    implied.push(
      ...(await this.givenBack(
        environmentId,
        rules,
        unique(instances).map((instance) => ({ user, instance })),
        filter,
      )),
    );
    return merged(stored, implied, filter, options);
  }

  /**
   * A user's grants in instance order after `instance.$gt` (all when absent): the stored ones are a
   * range of the id index (userGrantIds); the implied ones come from the user's grants that a rule
   * leads from into a sink role, at least `limit` of them when there are so many (impliedOfUser).
   */
  private async ofUserInOrder(environmentId: string, user: string, filter: Filter, options: FindOptions): Promise<GrantDoc[]> {
    const { instance, ...rest } = filter;
    const after = isAfter(instance) ? String(instance.$gt) : null;
    const stored = await this.stored.find(
      { ...rest, id: userGrantIds(environmentId, user, after) },
      { ...options, sortBy: 'id', byId: true },
    );
    const rules = await this.rulesOf(environmentId);
    const implied = await this.impliedOfUser(environmentId, rules, user, after, filter, options.limit);
    implied.push(...(await this.givenBackWhereEnded(environmentId, rules, { user }, filter)));
    return merged(stored, implied, filter, options);
  }

  /** The holders on one instance: the stored grants, and each rule into a sink role followed back to the holders of its source role. */
  private async holdersOn(environmentId: string, instance: string, filter: Filter, options: FindOptions): Promise<GrantDoc[]> {
    const stored = await this.stored.find(filter, options);
    const rules = await this.rulesOf(environmentId);
    const sinks = sinkRulesInto(rules, typeOf(instance), filter);
    const users: Filter = filter.user === undefined ? {} : { user: filter.user };
    const implied = sinks.length === 0 ? [] : await this.impliedOn(environmentId, rules, instance, sinks, { users, limit: options.limit });
    // Every holder given back on the instance (few): the page is cut from them and the others.
    implied.push(...(await this.givenBackWhereEnded(environmentId, rules, { resource_instance: instance }, filter)));
    return merged(stored, implied, filter, options);
  }

  /** Every grant of the environment: the stored ones, and every rule into a sink role followed from every holder of its source role. */
  private async everything(environmentId: string, options: FindOptions): Promise<GrantDoc[]> {
    const filter = { environment_id: environmentId };
    const stored = await this.stored.find(filter, { ...options, limit: undefined });
    const rules = await this.rulesOf(environmentId);
    const implied: GrantDoc[] = [];
    for (const entry of rules.all().filter((e) => rules.isSink(e.resource, e.role))) {
      const parents = stored.filter((g) => g.resource === entry.rule.onResource && g.role === entry.rule.role);
      for (const parent of parents) {
        const edges = await this.edges.find({ environment_id: environmentId, subject: parent.instance });
        for (const edge of edges) if (carries(entry, edge, parent)) implied.push(impliedGrant(parent, edge, entry));
      }
    }
    implied.push(...(await this.givenBackWhereEnded(environmentId, rules, {}, filter)));
    return merged(stored, await this.unguarded(environmentId, rules, implied), filter, options);
  }

  /**
   * The grants of the sink roles `sinks` (rules into roles of the instance's type) implied on one
   * instance: for one user, or for the holders `users` selects (at most `limit` per source).
   */
  private async impliedOn(
    environmentId: string,
    rules: RuleIndex,
    instance: string,
    sinks: RuleEntry[],
    who: { user: string } | { users: Filter; limit?: number },
  ): Promise<GrantDoc[]> {
    // The relation is compared here, not in the query: a relation condition could make SQLite pick the (environment, relation) index.
    const edges = await this.edges.find({ environment_id: environmentId, object: instance });
    const steps = edges.flatMap((edge) => sinks.filter((entry) => carriesAlong(entry, edge)).map((entry) => ({ edge, entry })));
    if (steps.length === 0) return [];
    const implied: GrantDoc[] = [];
    if ('user' in who) {
      const parentIds = unique(steps.map(({ edge, entry }) => grantId(environmentId, who.user, edge.subject, entry.rule.role)));
      const parents = new Map((await this.stored.find({ id: { $in: parentIds } })).map((g) => [g.id, g]));
      for (const { edge, entry } of steps) {
        const parent = parents.get(grantId(environmentId, who.user, edge.subject, entry.rule.role));
        if (parent && carries(entry, edge, parent)) implied.push(impliedGrant(parent, edge, entry));
      }
    } else {
      for (const { edge, entry } of steps) {
        const holders = await this.stored.find(
          { environment_id: environmentId, instance: edge.subject, role: entry.rule.role, tenant: edge.tenant, ...who.users },
          { sortBy: 'user', limit: who.limit },
        );
        for (const parent of holders) if (carries(entry, edge, parent)) implied.push(impliedGrant(parent, edge, entry));
      }
    }
    return this.unguarded(environmentId, rules, implied);
  }

  /**
   * A user's implied grants in instance order after `after`: from each of the user's grants that a
   * rule leads from into a sink role, the tuples along those rules in object order. Each source
   * reads until it has given `limit` grants (or has no more), so the first `limit` of the merged
   * sources are exact.
   */
  private async impliedOfUser(
    environmentId: string,
    rules: RuleIndex,
    user: string,
    after: string | null,
    filter: Filter,
    limit: number | undefined,
  ): Promise<GrantDoc[]> {
    const sinkRules = rules
      .all()
      .filter((e) => rules.isSink(e.resource, e.role) && matches(filter.resource, e.resource) && matches(filter.role, e.role));
    if (sinkRules.length === 0) return [];
    const parentFilter: Filter = {
      environment_id: environmentId,
      user,
      id: userGrantIds(environmentId, user, null),
      role: { $in: unique(sinkRules.map((e) => e.rule.role)) },
      ...(filter.tenant === undefined ? {} : { tenant: filter.tenant }),
    };
    // Counted, not read: a page that finds its grants by scanning the tuples reads only the parents of what it scanned.
    const count = await this.stored.count(parentFilter);
    if (count === 0) return [];
    const parents: ParentGrants = { user, filter: parentFilter, count };
    const implied: GrantDoc[] = [];
    for (const type of unique(sinkRules.map((e) => e.resource))) {
      const entries = sinkRules.filter((e) => e.resource === type);
      implied.push(...(await this.impliedOfType(environmentId, rules, type, entries, parents, after, limit)));
    }
    return implied;
  }

  /**
   * The grants of type `type` that the user's grants `parents` give along `entries` (rules into sink
   * roles of that type), in object order after `after`: at least `limit`, if there are so many. Two
   * ways, whichever is cheaper here: the type's tuples in object order, each page's subjects' grants
   * of the user's read by id (cheap when the user holds grants on most of those subjects, as a user
   * who edits most folders does), or each parent grant's own tuples, `limit` at a time (cheap for a
   * few grants). The first runs until it has read SCAN_ROWS_PER_SOURCE tuples per parent grant; what
   * it found is complete up to where it stopped, and the second goes on from there.
   */
  private async impliedOfType(
    environmentId: string,
    rules: RuleIndex,
    type: string,
    entries: RuleEntry[],
    parents: ParentGrants,
    after: string | null,
    limit: number | undefined,
  ): Promise<GrantDoc[]> {
    const found: GrantDoc[] = [];
    let lower = lowerBoundIn(type, after);
    let budget = parents.count * SCAN_ROWS_PER_SOURCE;
    while (budget > 0) {
      const page = await this.edges.find(
        { environment_id: environmentId, object: { $gt: lower, $lt: upperBoundOf(type) } },
        { sortBy: 'object', limit: SCAN_PAGE },
      );
      if (page.length === 0) return found;
      const last = page[page.length - 1]!.object;
      // A full page may end inside one object's tuples: that object's are read whole.
      const edges =
        page.length < SCAN_PAGE
          ? page
          : [...page.filter((e) => e.object !== last), ...(await this.edges.find({ environment_id: environmentId, object: last }))];
      const steps = edges.flatMap((edge) => entries.filter((entry) => carriesAlong(entry, edge)).map((entry) => ({ edge, entry })));
      const parentId = ({ edge, entry }: { edge: EdgeDoc; entry: RuleEntry }) =>
        grantId(environmentId, parents.user, edge.subject, entry.rule.role);
      const held = await this.parentsById(parents, unique(steps.map(parentId)));
      const step: GrantDoc[] = [];
      for (const { edge, entry } of steps) {
        const parent = held.get(parentId({ edge, entry }));
        if (parent && carries(entry, edge, parent)) step.push(impliedGrant(parent, edge, entry));
      }
      found.push(...(await this.unguarded(environmentId, rules, step)));
      if (page.length < SCAN_PAGE || (limit !== undefined && found.length >= limit)) return found;
      lower = last;
      budget -= edges.length;
    }
    for (const parent of await this.stored.find(parents.filter, { sortBy: 'id', byId: true })) {
      const from = entries.filter((e) => e.rule.onResource === parent.resource && e.rule.role === parent.role);
      if (from.length > 0) found.push(...(await this.impliedFrom(environmentId, rules, parent, from, type, lower, limit)));
    }
    return found;
  }

  /** Those of `ids` that are grants `parents` selects, by id. */
  private async parentsById(parents: ParentGrants, ids: string[]): Promise<Map<string, GrantDoc>> {
    const held = new Map<string, GrantDoc>();
    for (const chunk of chunks(ids))
      for (const grant of await this.stored.find({ id: { $in: chunk } }))
        if (matches(parents.filter.role, grant.role) && matches(parents.filter.tenant, grant.tenant)) held.set(grant.id, grant);
    return held;
  }

  /** The grants of type `type` that `entries` (rules from `parent`'s role) give along `parent`'s tuples, in object order after `after`: at least `limit`, if there are so many. */
  private async impliedFrom(
    environmentId: string,
    rules: RuleIndex,
    parent: GrantDoc,
    entries: RuleEntry[],
    type: string,
    after: string | null,
    limit: number | undefined,
  ): Promise<GrantDoc[]> {
    const found: GrantDoc[] = [];
    let lower = lowerBoundIn(type, after);
    for (;;) {
      const edges = await this.edges.find(
        {
          environment_id: environmentId,
          subject: parent.instance,
          tenant: parent.tenant,
          object: { $gt: lower, $lt: upperBoundOf(type) },
        },
        { sortBy: 'object', limit },
      );
      const step: GrantDoc[] = [];
      for (const edge of edges) for (const entry of entries) if (carries(entry, edge, parent)) step.push(impliedGrant(parent, edge, entry));
      found.push(...(await this.unguarded(environmentId, rules, step)));
      if (limit === undefined || edges.length < limit || found.length >= limit) return found;
      lower = edges[edges.length - 1]!.object;
    }
  }

  /**
   * The grants of guarded roles (`no_direct_roles_on_object`) that the end of a user's last direct
   * role on an instance gave back, for those of `pairs` where it did (DirectRolesAt.released): the
   * projection stores them again only when it applies that role's expiry event, a moment after the
   * end. Implied here as sink grants are, from the stored grants and the tuples into the instance,
   * so that checks and lists answer at the end as they will after the event. (What such a grant
   * derives further, on other instances, comes with the event: docs/expiring-access.md.) Sink
   * roles need nothing here: their guard is read with them (unguarded).
   */
  private async givenBack(environmentId: string, rules: RuleIndex, pairs: UserOn[], filter: Filter): Promise<GrantDoc[]> {
    if (this.directRoles === null || !rules.hasGuarded()) return [];
    const candidates = pairs.filter((p) => storedGuardedRulesInto(rules, typeOf(p.instance), filter).length > 0);
    if (candidates.length === 0) return [];
    const given: GrantDoc[] = [];
    for (const { user, instance } of await this.directRoles.released(environmentId, candidates)) {
      const entries = storedGuardedRulesInto(rules, typeOf(instance), filter);
      given.push(...(await this.impliedOn(environmentId, rules, instance, entries, { user })));
    }
    return given;
  }

  /** givenBack wherever a direct role among those `narrowing` selects (a user's, an instance's, all) has ended and is still stored. */
  private async givenBackWhereEnded(environmentId: string, rules: RuleIndex, narrowing: Filter, filter: Filter): Promise<GrantDoc[]> {
    if (this.directRoles === null || !rules.hasGuarded()) return [];
    return this.givenBack(environmentId, rules, await this.directRoles.ended(environmentId, narrowing), filter);
  }

  /** Drops the implied grants of guarded roles (`no_direct_roles_on_object`) for users who hold a direct role on that instance (a stored grant from an assignment). */
  private async unguarded(environmentId: string, rules: RuleIndex, implied: GrantDoc[]): Promise<GrantDoc[]> {
    const guarded = implied.filter((g) => rules.isGuarded(g.resource, g.role));
    if (guarded.length === 0) return implied;
    const pairs = uniquePairs(guarded);
    const direct = new Set((await this.directlyHeld(environmentId, pairs)).map((p) => pairKey(p.user, p.instance)));
    return implied.filter((g) => !(rules.isGuarded(g.resource, g.role) && direct.has(pairKey(g.user, g.instance))));
  }

  /**
   * Of `pairs`, where the user holds a direct role on the instance: from the assignments in force
   * (DirectRolesAt) when this reads them. Without them, from the stored grants whose support is an
   * assignment, which misses a direct role whose grant keeps a derivation that ends later.
   */
  private async directlyHeld(environmentId: string, pairs: UserOn[]): Promise<UserOn[]> {
    if (this.directRoles !== null) return this.directRoles.holding(environmentId, pairs);
    const held: UserOn[] = [];
    for (const instance of unique(pairs.map((p) => p.instance))) {
      const users = unique(pairs.filter((p) => p.instance === instance).map((p) => p.user));
      const grants = await this.stored.find({ environment_id: environmentId, instance, user: { $in: users } });
      for (const g of grants) if (g.reason.kind === 'assignment') held.push({ user: g.user, instance: g.instance });
    }
    return held;
  }
}

/** A user's grants that rules lead from into sink roles: their filter, and how many there are. */
interface ParentGrants {
  user: string;
  filter: Filter;
  count: number;
}

/** Tuples of a type read in object order per grant of the user's, before their grants' own tuples are read instead (impliedOfType). */
const SCAN_ROWS_PER_SOURCE = 8;
/** Tuples read a query in that scan. */
const SCAN_PAGE = 1_000;

/** Where instances of `type` after `after` (null: all of them) start, exclusive: `type:` sorts before every `type:key`. */
const lowerBoundIn = (type: string, after: string | null): string =>
  after !== null && byteOrder(after, `${type}:`) > 0 ? after : `${type}:`;
/** Past every instance of `type`, exclusive: `;` follows `:`. */
const upperBoundOf = (type: string): string => `${type};`;

const FILTER_FIELDS = new Set(['environment_id', 'user', 'instance', 'role', 'tenant', 'resource']);

/** The rules into sink roles of `type` that the filter's `role` and `resource` allow. */
function sinkRulesInto(rules: RuleIndex, type: string, filter: Filter): RuleEntry[] {
  if (!matches(filter.resource, type)) return [];
  return rules.all().filter((e) => e.resource === type && rules.isSink(e.resource, e.role) && matches(filter.role, e.role));
}

/** The rules into guarded roles of `type` whose grants are stored (no sink), that the filter's `role` and `resource` allow. */
function storedGuardedRulesInto(rules: RuleIndex, type: string, filter: Filter): RuleEntry[] {
  if (!matches(filter.resource, type)) return [];
  return rules
    .guardedOf(type)
    .filter((role) => !rules.isSink(type, role) && matches(filter.role, role))
    .flatMap((role) => rules.incoming(type, role));
}

/** Whether a filter's condition on a string field (absent, a value, or `$in`) admits `value`. */
function matches(condition: Filter[string] | undefined, value: string): boolean {
  if (condition === undefined) return true;
  if (isIn(condition)) return condition.$in.includes(value);
  return condition === value;
}

const isIn = (c: Filter[string] | undefined): c is { $in: Array<string | number | boolean | null> } =>
  c !== null && typeof c === 'object' && '$in' in c;
const isAfter = (c: Filter[string] | undefined): c is { $gt: string } =>
  c !== null && typeof c === 'object' && Object.keys(c).length === 1 && '$gt' in c;

/** Whether a rule carries `parent`'s role along the tuple: its relation, onto its type, from the parent's role and type, in the parent's tenant. */
const carries = (entry: RuleEntry, edge: EdgeDoc, parent: GrantDoc): boolean =>
  carriesAlong(entry, edge) &&
  entry.rule.role === parent.role &&
  entry.rule.onResource === parent.resource &&
  parent.tenant === edge.tenant;

function impliedGrant(parent: GrantDoc, edge: EdgeDoc, entry: RuleEntry): GrantDoc {
  const end = earlierEnd(parent.expires_at, edge.expires_at);
  return {
    id: grantId(parent.environment_id, parent.user, edge.object, entry.role),
    environment_id: parent.environment_id,
    user: parent.user,
    instance: edge.object,
    resource: entry.resource,
    role: entry.role,
    tenant: edge.tenant,
    from_grant: parent.id,
    reason: {
      kind: 'derivation',
      from_grant: parent.id,
      tuple: { id: edge.id, subject: edge.subject, relation: edge.relation, object: edge.object },
      rule: entry.rule,
    },
    // Its chain: the parent's, then the tuple.
    ...(end === undefined ? {} : { expires_at: end }),
    created_at: parent.created_at,
    updated_at: parent.updated_at,
  };
}

/**
 * The stored grants with the implied ones the store does not hold (a direct grant of a sink role
 * is stored), each implied grant once, by the support with the smallest parent id; then filtered,
 * sorted and cut as the store would.
 */
function merged(stored: GrantDoc[], implied: GrantDoc[], filter: Filter, options: FindOptions): GrantDoc[] {
  if (implied.length === 0) return stored;
  const byId = new Map<string, GrantDoc>();
  for (const g of implied) {
    const seen = byId.get(g.id);
    if (!seen || byteOrder(g.from_grant!, seen.from_grant!) < 0) byId.set(g.id, g);
  }
  for (const g of stored) byId.delete(g.id);
  // The stored rows already match the filter (and may be partial, per `fields`); the implied ones are selected here.
  const chosen = findInMemory([...byId.values()], filter, { ...options, limit: undefined, fields: undefined });
  const all = [...stored.map((g) => ({ g, partial: true })), ...chosen.map((g) => ({ g, partial: false }))];
  const sortBy = options.sortBy ?? 'id';
  // Every field a grant query sorts by (id, instance, user) is a string.
  const key = (g: GrantDoc) => (g as unknown as Record<string, string | undefined>)[sortBy] ?? '';
  all.sort((a, b) => byteOrder(key(a.g), key(b.g)) || byteOrder(a.g.id, b.g.id));
  const page = options.limit === undefined ? all : all.slice(0, options.limit);
  return page.map(({ g, partial }) => (partial ? g : findInMemory([g], {}, { fields: options.fields })[0]!));
}

/** The distinct (user, instance) of `grants`. */
function uniquePairs(grants: GrantDoc[]): UserOn[] {
  const pairs = new Map<string, UserOn>();
  for (const g of grants) pairs.set(pairKey(g.user, g.instance), { user: g.user, instance: g.instance });
  return [...pairs.values()];
}
