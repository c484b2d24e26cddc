import type { CheckpointSaveResult, Collection, CollectionSpec, DocumentStore, Filter, FindOptions } from '../../docstore/port';
import {
  readModelSpecs,
  type AssignmentDoc,
  type InstanceDoc,
  type RelationDoc,
  type ResourceDoc,
  type RoleDoc,
  type TenantDoc,
  type TupleDoc,
  type ConditionSetDoc,
  type SetRuleDoc,
  type ProxyConfigDoc,
  type UserInviteDoc,
  type UserDoc,
} from '../read-models';
import { withFields } from '../../objects';
import { documentOf, historySpec, OPEN, openVersionOf, type Stamped, type Version } from './versions';
import { byteOrder, compareValues, findInMemory, matches } from '../../docstore/value-order';
import { mergeNewestFirst, naturalOrder } from './merge';

export { documentOf, historySpec, OPEN, sameDocument, versionId, versionOf, type Version, type Versioned } from './versions';

/**
 * The history read model: every version of every environment-scoped document
 * (resources, roles, relations, tenants, users, instances, assignments,
 * tuples…) with the interval of log positions it was current in,
 * `[_from, _to)`. A version is the document exactly as the read model held it,
 * so a read "as of" a position answers what the current read model answered
 * when the log was there.
 *
 * As SQL:2011's system-versioned tables keep them: the current document is the
 * open version (it carries `_from`, the position it became true at), and each
 * collection's history keeps the closed versions, written as the projections
 * replace or delete documents (versioning.ts). A read as of `p` merges the
 * current documents with `_from <= p` and the closed versions alive at `p`
 * (`_from <= p < _to`): the current ones read first, a document found in both
 * taken from the first (a batch can commit between the two reads, and closes a
 * version before it replaces the document, so nothing is found in neither).
 */

/** The read-model collections that are versioned: every environment-scoped one. */
export const versionedSpecs = {
  resources: readModelSpecs.resources,
  resourceRoles: readModelSpecs.resourceRoles,
  roles: readModelSpecs.roles,
  relations: readModelSpecs.relations,
  tenants: readModelSpecs.tenants,
  users: readModelSpecs.users,
  instances: readModelSpecs.instances,
  assignments: readModelSpecs.assignments,
  tuples: readModelSpecs.tuples,
  conditionSets: readModelSpecs.conditionSets,
  setRules: readModelSpecs.setRules,
  proxyConfigs: readModelSpecs.proxyConfigs,
  userInvites: readModelSpecs.userInvites,
} satisfies Record<string, CollectionSpec>;
export type VersionedName = keyof typeof versionedSpecs;
const versionedByCollection = new Map<string, CollectionSpec>(Object.values(versionedSpecs).map((spec) => [spec.name, spec]));

/** Versions of one collection's documents: its current documents (the open versions) and its history (the closed ones). */
export class HistoryCollection<T extends { id: string }> {
  /** The current documents, each with its `_from`. */
  readonly current: Collection<Stamped<T>>;
  /** The closed versions. */
  readonly closed: Collection<Version<T>>;
  /** Every version, the open ones included, read-only (`id` is the version's id; no filter on it). */
  readonly versions: Collection<Version<T>>;

  constructor(store: DocumentStore, spec: CollectionSpec) {
    this.current = store.collection<Stamped<T>>(spec);
    this.closed = store.collection<Version<T>>(historySpec(spec));
    this.versions = new AllVersions(this.current, this.closed);
  }

  /** The versions current at some point of `[from, to]` (positions), matching `filter`. */
  async overlapping(filter: Filter, from: number, to: number): Promise<Array<Version<T>>> {
    const open = (await this.current.find(withFields(filter, { _from: { $lte: to } }))).map(openVersionOf);
    const closed = await this.closed.find(withFields(filter, { _from: { $lte: to }, _to: { $gt: from } }));
    return mergeNewestFirst(open, closed, (v) => v.id);
  }
}

/**
 * Every version of a collection's documents as one read-only collection: the current documents as
 * open versions, and the closed ones. Filters name the history's fields (`_oid`, `_from`, `_to`…)
 * but not a version's `id`; sorts and pages are made over the two read whole.
 */
class AllVersions<T extends { id: string }> implements Collection<Version<T>> {
  constructor(
    private readonly current: Collection<Stamped<T>>,
    private readonly closed: Collection<Version<T>>,
  ) {}

  async get(id: string): Promise<Version<T> | null> {
    const at = id.lastIndexOf('@');
    if (at < 0) return null;
    return (await this.find({ _oid: id.slice(0, at), _from: Number(id.slice(at + 1)) }))[0] ?? null;
  }

  async findOne(filter: Filter): Promise<Version<T> | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Array<Version<T>>> {
    if ('id' in filter) throw new Error('the versions of a collection are not filtered by version id');
    const onCurrent = this.currentFilter(filter);
    const open = onCurrent ? (await this.current.find(onCurrent)).map(openVersionOf) : [];
    return findInMemory(
      mergeNewestFirst(open, await this.closed.find(filter), (v) => v.id),
      {},
      options,
    );
  }

  async count(filter: Filter): Promise<number> {
    return (await this.find(filter)).length;
  }

  /** `filter` on the current documents (`_oid` is their id, `_to` is OPEN), or null when none can match it. */
  private currentFilter(filter: Filter): Filter | null {
    const onCurrent: Filter = {};
    for (const [name, condition] of Object.entries(filter)) {
      if (name === '_to') {
        if (!matches(OPEN, condition)) return null;
      } else onCurrent[name === '_oid' ? 'id' : name] = condition;
    }
    return onCurrent;
  }

  put(): Promise<void> {
    return readOnly();
  }
  putMany(): Promise<void> {
    return readOnly();
  }
  insertMissing(): Promise<Array<Version<T>>> {
    return readOnly();
  }
  delete(): Promise<void> {
    return readOnly();
  }
  deleteMany(): Promise<number> {
    return readOnly();
  }
}

const field = (doc: object, name: string): unknown => (doc as Record<string, unknown>)[name];

/** Where the history starts. */
export interface HistoryMetaDoc {
  id: string;
  /** The position the history starts at (0: from the beginning of the log). */
  since: number;
}

/**
 * One entry per distinct running maximum of an environment's event times: the
 * first position of its stream at which the latest event time so far was
 * `at`. The state of the environment "at time t" is its longest prefix of
 * events accepted at or before t (as a copy's `as_of` reads it): the position
 * just before the first entry later than t.
 */
export interface ClockDoc {
  id: string;
  environment_id: string;
  at: string;
  first: number;
}

const metaSpec: CollectionSpec = { name: 'history_meta', fields: [], indexes: [] };
/**
 * Read by ranges of ids (`clockAfter`), whose order is an environment's time order: kept in its
 * key's tree alone, one tree written per entry instead of a table, its key index and an index
 * on (environment_id, at) that held the same order (a live log makes an entry per request).
 */
const clockSpec: CollectionSpec = { name: 'history_clock', fields: ['environment_id', 'at'], indexes: [], compact: true, clustered: true };

/** Every collection of the history read model, on one document store. */
export class HistoryCollections {
  readonly resources: HistoryCollection<ResourceDoc>;
  readonly resourceRoles: HistoryCollection<RoleDoc>;
  readonly roles: HistoryCollection<RoleDoc>;
  readonly relations: HistoryCollection<RelationDoc>;
  readonly tenants: HistoryCollection<TenantDoc>;
  readonly users: HistoryCollection<UserDoc>;
  readonly instances: HistoryCollection<InstanceDoc>;
  readonly assignments: HistoryCollection<AssignmentDoc>;
  readonly tuples: HistoryCollection<TupleDoc>;
  readonly conditionSets: HistoryCollection<ConditionSetDoc>;
  readonly setRules: HistoryCollection<SetRuleDoc>;
  readonly proxyConfigs: HistoryCollection<ProxyConfigDoc>;
  readonly userInvites: HistoryCollection<UserInviteDoc>;
  readonly meta: Collection<HistoryMetaDoc>;
  readonly clock: Collection<ClockDoc>;

  constructor(readonly store: DocumentStore) {
    this.resources = new HistoryCollection(store, versionedSpecs.resources);
    this.resourceRoles = new HistoryCollection(store, versionedSpecs.resourceRoles);
    this.roles = new HistoryCollection(store, versionedSpecs.roles);
    this.relations = new HistoryCollection(store, versionedSpecs.relations);
    this.tenants = new HistoryCollection(store, versionedSpecs.tenants);
    this.users = new HistoryCollection(store, versionedSpecs.users);
    this.instances = new HistoryCollection(store, versionedSpecs.instances);
    this.assignments = new HistoryCollection(store, versionedSpecs.assignments);
    this.tuples = new HistoryCollection(store, versionedSpecs.tuples);
    this.conditionSets = new HistoryCollection(store, versionedSpecs.conditionSets);
    this.setRules = new HistoryCollection(store, versionedSpecs.setRules);
    this.proxyConfigs = new HistoryCollection(store, versionedSpecs.proxyConfigs);
    this.userInvites = new HistoryCollection(store, versionedSpecs.userInvites);
    this.meta = store.collection<HistoryMetaDoc>(metaSpec);
    this.clock = store.collection<ClockDoc>(clockSpec);
  }

  /** The position the history starts at, or null when no history is kept (the projection never ran). */
  async since(): Promise<number | null> {
    return (await this.meta.get(SINCE))?.since ?? null;
  }

  /**
   * The position of environment `environmentId` at time `time` (ISO 8601 UTC):
   * the last position before its first event whose running maximum time is
   * later; null when no event of it is later (the state now is the state then).
   */
  async positionAtTime(environmentId: string, time: string): Promise<number | null> {
    const [later] = await this.clock.find({ id: clockAfter(environmentId, time) }, { sortBy: 'id', limit: 1 });
    return later ? later.first - 1 : null;
  }
}

export const SINCE = 'since';
export const clockId = (environmentId: string, at: string): string => `${environmentId} ${at}`;

/**
 * The ids of an environment's clock entries later than `at`, as a range: its entries' ids all
 * start with `<environment> ` (an id holds no space or control character, so no other
 * environment's fall between), and among them id order is `at` order (ISO 8601 UTC strings).
 */
export const clockAfter = (environmentId: string, at: string) => ({ $gt: clockId(environmentId, at), $lt: `${environmentId}!` });

/**
 * A read-only view of one versioned collection at one position: the current documents born at or
 * before it and the closed versions alive there, merged (the current first, each document once),
 * presented as the current documents are (their own ids, no `_from`). A sort keeps its order (its
 * field, then id); without one, the order is the one the engine lists the current collection in
 * for the same filter (merge.ts, `naturalOrder`). Pages are cut from the merged list.
 */
class AsOfCollection<T extends { id: string }> implements Collection<T> {
  constructor(
    private readonly spec: CollectionSpec,
    private readonly current: Collection<Stamped<T>>,
    private readonly closed: Collection<Version<T>>,
    private readonly position: number,
    /** The store's pages without a sort come in id order (DocumentStore.unsortedPagesById). */
    private readonly pagesById: boolean,
  ) {}

  async get(id: string): Promise<T | null> {
    return (await this.find({ id }, { limit: 1 }))[0] ?? null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const { skip = 0, limit, sortBy, descending } = options;
    const order = sortBy === undefined ? this.unsortedOrder(filter, options) : null;
    // Each side read up to the end of the page, in the page's order (the history's indexes give its
    // side the current side's order, merge.ts); again, further, when documents found on both sides left it short.
    for (let want = limit === undefined ? undefined : skip + limit; ; want = want! * 2) {
      const bounded = want === undefined ? {} : { limit: want };
      const fields = options.fields ? [...new Set([...options.fields.filter((f) => f !== 'id'), ...(order ?? [])])] : undefined;
      const current = await this.current.find(withFields(filter, { _from: { $lte: this.position } }), {
        ...(sortBy === undefined ? {} : { sortBy, descending }),
        ...(fields ? { fields: [...fields, '_from'] } : {}),
        ...(options.byId ? { byId: true } : {}),
        ...bounded,
      });
      const closed = await this.closed.find(this.closedFilter(filter), {
        ...(sortBy === undefined ? {} : { sortBy: sortBy === 'id' ? '_oid' : sortBy, descending }),
        ...(fields ? { fields: [...fields, '_oid', '_from'] } : {}),
        ...bounded,
      });
      const found: object[] = mergeNewestFirst<object>(
        current,
        closed,
        (doc) => (doc as { _oid?: string; id: string })._oid ?? (doc as { id: string }).id,
      );
      if (order) found.sort((a, b) => compareBy(order, a, b));
      else if (sortBy !== undefined) {
        const direction = descending ? -1 : 1;
        const key = sortBy === 'id' ? idOf : (doc: object) => field(doc, sortBy);
        found.sort((a, b) => direction * (compareValues(key(a), key(b)) || byteOrder(idOf(a), idOf(b))));
      }
      const short = want !== undefined && found.length < want && (current.length === want || closed.length === want);
      if (short) continue;
      const page = found.slice(skip, limit === undefined ? undefined : skip + limit);
      return page.map((doc) => (options.fields ? only<T>(doc, options.fields) : documentOf(doc as Version<T>)));
    }
  }

  /**
   * How many documents match at the position: those of each side, less those found on both (a
   * batch committed between the reads); counted again until two counts of the current side
   * agree around the count of the closed ones (then no document moved from one to the other).
   */
  async count(filter: Filter): Promise<number> {
    const onCurrent = withFields(filter, { _from: { $lte: this.position } });
    let before = await this.current.count(onCurrent);
    for (;;) {
      const closed = await this.closed.count(this.closedFilter(filter));
      const after = await this.current.count(onCurrent);
      if (after === before) return before + closed;
      before = after;
    }
  }

  /**
   * The order of a list without a sort: the current collection's for the same read. Where the
   * store pages such a list by id, a page is in id order, and a whole list in the order the
   * documents were written (each version's, as the history collection held them: `_from`).
   */
  private unsortedOrder(filter: Filter, options: FindOptions): string[] {
    if (!this.pagesById) return naturalOrder(this.spec, filter);
    return options.skip !== undefined ? [] : ['_from'];
  }

  private closedFilter(filter: Filter): Filter {
    const valid: Filter = {};
    for (const [name, condition] of Object.entries(filter)) valid[name === 'id' ? '_oid' : name] = condition;
    valid._from = { $lte: this.position };
    valid._to = { $gt: this.position };
    return valid;
  }

  put(): Promise<void> {
    return readOnly();
  }
  putMany(): Promise<void> {
    return readOnly();
  }
  insertMissing(): Promise<T[]> {
    return readOnly();
  }
  delete(): Promise<void> {
    return readOnly();
  }
  deleteMany(): Promise<number> {
    return readOnly();
  }
}

/** Orders two documents by `fields` in turn (the order's last field is `_from`, then id). */
function compareBy(fields: readonly string[], a: object, b: object): number {
  for (const name of fields) {
    const c = compareValues(field(a, name), field(b, name));
    if (c !== 0) return c;
  }
  return byteOrder(idOf(a), idOf(b));
}

/** The document's own id: a closed version's `_oid`, a current document's `id`. */
const idOf = (doc: object): string => (doc as { _oid?: string })._oid ?? (doc as { id: string }).id;

/** A partial document (`fields`) as the current collection gives it: id and those fields, null where absent. */
function only<T>(doc: object, fields: readonly string[]): T {
  const out: Record<string, unknown> = { id: idOf(doc) };
  for (const name of fields) if (name !== 'id') out[name] = field(doc, name) ?? null;
  return out as T;
}

const readOnly = (): Promise<never> => Promise.reject(new Error('a read model as of a past position is read-only'));

/**
 * The document store as it was at one log position, for reads: a versioned
 * collection is answered from its history, as of that position; any other
 * (organisations, projects, environments, API keys, which are not versioned)
 * is the current one. `new ReadModels(new AsOfDocumentStore(store, p))` is the
 * read models at p, with the current API; a collection that is neither
 * versioned nor current-only (derived grants) is refused, since the history
 * does not keep it (checks derive grants at p on the fly).
 */
export class AsOfDocumentStore implements DocumentStore {
  readonly atomicTransactions = false;

  constructor(
    private readonly store: DocumentStore,
    readonly position: number,
  ) {}

  collection<T extends { id: string }>(spec: CollectionSpec): Collection<T> {
    const versioned = versionedByCollection.get(spec.name);
    if (versioned) {
      const current = this.store.collection<Stamped<T>>(versioned);
      const closed = this.store.collection<Version<T>>(historySpec(versioned));
      return new AsOfCollection(versioned, current, closed, this.position, this.store.unsortedPagesById === true);
    }
    if (currentOnly.has(spec.name)) return this.store.collection<T>(spec);
    throw new Error(`collection ${spec.name} has no history`);
  }

  transaction<R>(): Promise<R> {
    return readOnly();
  }
  /** Read-only, so there is no writer to give a view of its own: it is its own writer view (whose transactions it refuses). */
  writerView(): DocumentStore {
    return this;
  }
  loadCheckpoint(name: string): Promise<number | null> {
    return this.store.loadCheckpoint(name);
  }
  saveCheckpoint(): Promise<CheckpointSaveResult> {
    return readOnly();
  }
  dropAll(): Promise<void> {
    return readOnly();
  }
  async close(): Promise<void> {}
}

/** Collections that are not versioned: read as they are now. */
const currentOnly = new Set([
  readModelSpecs.organizations.name,
  readModelSpecs.projects.name,
  readModelSpecs.environments.name,
  readModelSpecs.apiKeys.name,
  // The ends due, for the expiry scheduler, which reads them now only (the facts keep their ends' history).
  readModelSpecs.factEnds.name,
]);
