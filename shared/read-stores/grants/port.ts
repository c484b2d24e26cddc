import type { GrantDoc, RulesDoc } from '../../read-models/grants/model';

export type { GrantDoc, RulesDoc };

/**
 * Ids between two bounds, both exclusive: one user's grants (all, on one type, on one instance,
 * after an instance), as `userGrantIds`, `typeGrantIds` and `instanceGrantIds` give them
 * (shared/read-models/grants/model.ts: a grant's id is its user's hashed prefix, then its
 * instance, then its role, so that one user's grants are a range of the primary key in instance order).
 */
export interface GrantIdRange {
  after: string;
  before: string;
}

/**
 * What a read keeps of the rows its index range holds: each list given admits the rows whose field
 * is one of it (absent: any). A condition on the rows of one range, not a choice of index: every
 * operation reads the index it names whatever is narrowed.
 */
export interface GrantNarrowing {
  roles?: readonly string[];
  tenants?: readonly string[];
  resources?: readonly string[];
}

/** A user's role on an instance and its end: what a check compares (GrantStore.rolesOn). */
export interface HeldRole {
  id: string;
  role: string;
  expires_at: string | null;
}

/** A page of one instance's holders (GrantStore.holders). */
export interface HoldersPage extends GrantNarrowing {
  /** Only holders whose user sorts after this one (byte order). */
  afterUser?: string;
  /** Only these users. */
  users?: readonly string[];
  limit?: number;
}

/**
 * The derived grants' read store (docs/read-stores.md, docs/grants.md): the stored grants and each
 * environment's derivation rules, as the grants projection writes them and the grant queries and
 * the projection itself read them. Each read is one query shape served by one index:
 * - the primary key, the grant's id: `get`, `byIds`, and one user's grants as a range of it
 *   (`userRange`, `countUserRange`), in id order, which is instance order;
 * - `(environment_id, instance, user, role, expires_at)`: the holders of roles on an instance
 *   (`holders`, in user order, then role), a user's grants on given instances (`userOn`), and the
 *   roles a check compares (`rolesOn`, from the index alone), the grants on any of several
 *   instances (`onInstances`), and an environment's grants (`ofEnvironment`).
 * No index on the grant's support (`from_grant`): the retraction finds a grant's dependants
 * through the tuples from its instance (projection-service/grants/retract.ts), and an index on it
 * cost every grant written one more entry at a random place.
 *
 * The writes are the projection's, through the store of the runner's writer view, so that on a
 * transactional engine they commit with its batch. Every read gives whole grants, their support
 * (`reason`) included, and `from_grant` and `expires_at` null when there is none.
 */
export interface GrantStore {
  get(id: string): Promise<GrantDoc | null>;
  /** The stored grants of `ids` (any number, each id once), in no particular order. */
  byIds(ids: readonly string[]): Promise<GrantDoc[]>;
  /** One user's grants in `range`, in id order, narrowed; the first `limit` (all when absent) after skipping `skip`. */
  userRange(range: GrantIdRange, narrowing?: GrantNarrowing, page?: { limit?: number; skip?: number }): Promise<GrantDoc[]>;
  /** How many grants `range` holds as narrowed, counting no further than `atMost` (all when absent). */
  countUserRange(range: GrantIdRange, narrowing?: GrantNarrowing, atMost?: number): Promise<number>;
  /** The holders of roles on one instance, in user order (then role), narrowed and paged as `page` says. */
  holders(environmentId: string, instance: string, page?: HoldersPage): Promise<GrantDoc[]>;
  /** One user's grants on any of `instances`, narrowed, in id order. */
  userOn(environmentId: string, user: string, instances: readonly string[], narrowing?: GrantNarrowing): Promise<GrantDoc[]>;
  /** A user's roles on one instance (of `roles` when given) and their ends, in role order: a check's read, which the index answers alone. */
  rolesOn(environmentId: string, user: string, instance: string, roles?: readonly string[]): Promise<HeldRole[]>;
  /** The grants on any of `instances` (one environment), at most `limit`, in no particular order. */
  onInstances(environmentId: string, instances: readonly string[], limit: number): Promise<GrantDoc[]>;
  /** Every grant of one environment, in id order (tests, audits, and the whole-environment read of the queries). */
  ofEnvironment(environmentId: string): Promise<GrantDoc[]>;
  /** How many grants are stored, every environment (benchmarks). */
  count(): Promise<number>;

  /** Stores those of `grants` whose id is not stored yet (of a repeated id, the first); returns them, in the order given. */
  insertMissing(grants: readonly GrantDoc[]): Promise<GrantDoc[]>;
  /** Stores `grants`, replacing any stored under their ids. */
  put(grants: readonly GrantDoc[]): Promise<void>;
  /** Deletes the grants of `ids`; returns how many were stored. */
  delete(ids: readonly string[]): Promise<number>;

  /** The derivation rules of an environment as the projection last stored them, or null. */
  rules(environmentId: string): Promise<RulesDoc | null>;
  /** Stores an environment's rules (keyed by `rules.id`, its environment id), replacing what was stored. */
  putRules(rules: RulesDoc): Promise<void>;
}
