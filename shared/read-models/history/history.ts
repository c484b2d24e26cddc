import { isDeepStrictEqual } from 'node:util';
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

/**
 * The history read model: every version of every environment-scoped document
 * (resources, roles, relations, tenants, users, instances, assignments,
 * tuples) with the interval of log positions it was current in,
 * `[_from, _to)`. A version is the document exactly as the read model held it
 * (the projection copies it after the core projections applied the event), so
 * a read "as of" a position answers what the current read model answered when
 * the log was there.
 *
 * Each history collection is declared from its current collection: the same
 * fields plus `_oid` (the document's id), `_from` and `_to`; the same indexes
 * with `_from` appended, so a lookup that names every field of an index reads
 * "born at or before p" as a range of that index (and checks `_to > p` on the
 * few rows found), and a list orders its rows as the current list does (ties
 * in creation order); plus `(_oid, _from)` for reads by id.
 */

/** `_to` of the version that is current now. */
export const OPEN = Number.MAX_SAFE_INTEGER;

export interface Versioned {
  /** The document's own id (`id` is the version's: `<_oid>@<_from>`). */
  _oid: string;
  /** Position of the event that made this version (inclusive). */
  _from: number;
  /** Position of the event that replaced or deleted it (exclusive); OPEN while current. */
  _to: number;
}
export type Version<T> = T & Versioned;

export function historySpec(spec: CollectionSpec): CollectionSpec {
  return {
    name: `history_${spec.name}`,
    fields: [...spec.fields, '_oid', '_from', '_to'],
    indexes: [...spec.indexes.map((index) => [...index, '_from']), ['_oid', '_from']],
    ...(spec.compact ? { compact: true } : {}),
  };
}

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

export const versionId = (oid: string, from: number): string => `${oid}@${from}`;

export function versionOf<T extends { id: string }>(doc: T, from: number, to = OPEN): Version<T> {
  // Once per version written: not a spread (shared/objects.ts).
  return withFields(doc, { id: versionId(doc.id, from), _oid: doc.id, _from: from, _to: to }) as Version<T>;
}

/**
 * Whether two forms of a document hold the same: deeply equal, a top-level field that is null
 * counting as absent. A document read back has null where a compact collection's column was
 * left out, one handed over by the projection that wrote it (WrittenDocs) has nothing there.
 */
export function sameDocument(a: object, b: object): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key in left) if (!isDeepStrictEqual(left[key] ?? null, right[key] ?? null)) return false;
  for (const key in right) if (!(key in left) && right[key] !== null && right[key] !== undefined) return false;
  return true;
}

/** The document a version holds, as the current collection returns it. */
export function documentOf<T extends { id: string }>(version: Version<T>): T {
  const { _oid, _from: _f, _to: _t, ...rest } = version;
  return { ...rest, id: _oid } as unknown as T;
}

/**
 * What one batch of the projection knows of a collection's versions: for each
 * document it recorded, the versions a lookup at its first position in the
 * batch found (those alive then), kept up to date by its own writes; those
 * writes, which go out together at the end of the batch; and the records not
 * yet applied, whose lookups are made together, many documents a query.
 */
interface VersionBatch<T> {
  alive: Map<string, Array<Version<T>>>;
  writes: Map<string, Version<T>>;
  pending: Array<{ id: string; doc: T | null; position: number }>;
}

/** Documents whose versions one query looks up (`$in`): one query per document was a visible part of a rebuild's projection thread. */
const LOOKUP_CHUNK = 500;

/** Versions of one collection's documents. */
export class HistoryCollection<T extends { id: string }> {
  readonly versions: Collection<Version<T>>;
  private batch: VersionBatch<T> | null = null;

  constructor(store: DocumentStore, spec: CollectionSpec) {
    this.versions = store.collection<Version<T>>(historySpec(spec));
  }

  /**
   * From here until `endBatch`, `record` keeps what it is told until
   * `writePending`, which looks up the versions of the documents it names
   * together, then applies the records in order, a document seen earlier in
   * the batch answered from memory, and writes their versions (a document
   * changed by several events of a batch is looked up once, and its
   * intermediate versions written once). Positions must rise until then. A
   * batch begun again drops what the last one kept (it failed, and was rolled
   * back or will be replayed).
   */
  beginBatch(): void {
    this.batch = { alive: new Map(), writes: new Map(), pending: [] };
  }

  /** Applies and writes what the batch kept back (before anything reads `versions` directly, and at its end). */
  async writePending(): Promise<void> {
    if (!this.batch) return;
    const { pending, writes } = this.batch;
    if (pending.length > 0) {
      this.batch.pending = [];
      await this.lookUp(pending);
      for (const { id, doc, position } of pending) await this.apply(id, doc, position);
    }
    if (writes.size === 0) return;
    const docs = [...writes.values()];
    writes.clear();
    await this.versions.putMany(docs);
  }

  /** Writes what the batch kept back and goes back to writing each version at once. */
  async endBatch(): Promise<void> {
    await this.writePending();
    this.batch = null;
  }

  /**
   * Records that document `id` is `doc` from `position` on (null: it is gone).
   * Idempotent and safe under replay: if a version of `id` starts at or after
   * `position`, or one ended there or later, this event (or a later one) was
   * recorded already and nothing changes; an unchanged document makes no new version.
   */
  async record(id: string, doc: T | null, position: number): Promise<void> {
    if (this.batch) this.batch.pending.push({ id, doc, position });
    else await this.apply(id, doc, position);
  }

  private async apply(id: string, doc: T | null, position: number): Promise<void> {
    const alive = (await this.aliveAt(id, position)).filter((v) => v._to > position - 1);
    if (alive.some((v) => v._from >= position || v._to !== OPEN)) return;
    const open = alive[0];
    if (open && doc && sameDocument(documentOf(open), doc)) return;
    if (open) await this.write(id, { ...open, _to: position });
    if (doc) await this.write(id, versionOf(doc, position));
  }

  /**
   * The versions of `id` with `_to > position - 1`, or (in a batch, for a
   * document seen before in it) a superset of them: those alive at its first
   * position in the batch, which is lower, as this batch's writes left them.
   */
  private async aliveAt(id: string, position: number): Promise<Array<Version<T>>> {
    const known = this.batch?.alive.get(id);
    if (known) return known;
    const found = await this.versions.find({ _oid: id, _to: { $gt: position - 1 } });
    this.batch?.alive.set(id, found);
    return found;
  }

  /**
   * Looks up, many a query, the versions of the documents `records` name that the batch has not
   * looked up yet: for each, those with `_to` past the first position of its chunk less one, a
   * superset of those alive at its own first position (what `aliveAt` may answer).
   */
  private async lookUp(records: ReadonlyArray<{ id: string; position: number }>): Promise<void> {
    const alive = this.batch!.alive;
    const firstAt = new Map<string, number>();
    for (const { id, position } of records) if (!alive.has(id) && !firstAt.has(id)) firstAt.set(id, position);
    const ids = [...firstAt.keys()];
    for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
      const chunk = ids.slice(i, i + LOOKUP_CHUNK);
      const from = Math.min(...chunk.map((id) => firstAt.get(id)!));
      for (const id of chunk) alive.set(id, []);
      for (const version of await this.versions.find({ _oid: { $in: chunk }, _to: { $gt: from - 1 } }))
        alive.get(version._oid)!.push(version);
    }
  }

  private async write(id: string, version: Version<T>): Promise<void> {
    if (!this.batch) return this.versions.put(version);
    const alive = this.batch.alive.get(id)!;
    const at = alive.findIndex((v) => v.id === version.id);
    if (at >= 0) alive[at] = version;
    else alive.push(version);
    this.batch.writes.set(version.id, version);
  }

  /** The versions current at some point of `[from, to]` (positions), matching `filter`. */
  overlapping(filter: Filter, from: number, to: number, options: FindOptions = {}): Promise<Array<Version<T>>> {
    return this.versions.find(withFields(filter, { _from: { $lte: to }, _to: { $gt: from } }), options);
  }
}

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

  private versioned(): Array<HistoryCollection<{ id: string }>> {
    return (Object.keys(versionedSpecs) as VersionedName[]).map((name) => this[name] as HistoryCollection<{ id: string }>);
  }

  /** `beginBatch` on every versioned collection. */
  beginBatch(): void {
    for (const collection of this.versioned()) collection.beginBatch();
  }

  /** `endBatch` on every versioned collection. */
  async endBatch(): Promise<void> {
    for (const collection of this.versioned()) await collection.endBatch();
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
 * A read-only view of one history collection at one position: the versions
 * valid there, presented as the current documents were (their own ids). A
 * filter or sort on `id` means the document's id.
 */
class AsOfCollection<T extends { id: string }> implements Collection<T> {
  constructor(
    private readonly versions: Collection<Version<T>>,
    private readonly position: number,
  ) {}

  async get(id: string): Promise<T | null> {
    return (await this.find({ id }, { limit: 1 }))[0] ?? null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const found = await this.versions.find(this.validFilter(filter), {
      ...options,
      ...(options.sortBy === 'id' ? { sortBy: '_oid' } : {}),
      ...(options.fields ? { fields: [...options.fields.filter((f) => f !== 'id'), '_oid'] } : {}),
    });
    if (!options.fields) return found.map(documentOf);
    return found.map((v) => {
      const doc: Record<string, unknown> = { id: v._oid };
      for (const field of options.fields!) if (field !== 'id') doc[field] = (v as unknown as Record<string, unknown>)[field];
      return doc as T;
    });
  }

  count(filter: Filter): Promise<number> {
    return this.versions.count(this.validFilter(filter));
  }

  private validFilter(filter: Filter): Filter {
    const valid: Filter = {};
    for (const [field, condition] of Object.entries(filter)) valid[field === 'id' ? '_oid' : field] = condition;
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
    if (versioned) return new AsOfCollection(this.store.collection<Version<T>>(historySpec(versioned)), this.position);
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
]);
