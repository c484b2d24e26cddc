import type { EnvEvent, EventHandlers, RecordedEvent } from '../../shared/events';
import { dispatch, eventTypes, handledTypes, isDomainEvent, streamCategory } from '../../shared/events';
import type { Collection } from '../../shared/docstore/port';
import type { Projection } from '../../shared/read-models/projection';
import type { ReadModels } from '../../shared/read-models/read-models';
import {
  clockAfter,
  clockId,
  HistoryCollections,
  SINCE,
  versionOf,
  type ClockDoc,
  type HistoryCollection,
  type VersionedName,
} from '../../shared/read-models/history/history';

/** What a history handler works with, for one event. */
export interface HistoryScope {
  rm: ReadModels;
  history: HistoryCollections;
  environmentId: string;
  position: number;
}

/**
 * Copies the current document `id` of a versioned collection into its history
 * (as it is after this event: the core projections ran first), or closes its
 * version when the event removed it. The document is the one the core
 * projections just wrote, when the read models recorded it (WrittenDocs), and
 * is read back otherwise.
 */
async function copy(scope: HistoryScope, name: VersionedName, id: string): Promise<void> {
  const history = scope.history[name] as HistoryCollection<{ id: string }>;
  const written = scope.rm.written?.get<{ id: string }>(name, id);
  const doc = written !== undefined ? written : await (scope.rm[name] as Collection<{ id: string }>).get(id);
  await history.record(id, doc, scope.position);
}

/** As copy, for a document found by a filter (the user of an assignment, the resource of a relation): the one found. */
async function copyFound(scope: HistoryScope, name: 'users' | 'resources', key: string): Promise<void> {
  const doc = await scope.rm[name].findOne({ environment_id: scope.environmentId, key });
  if (doc) await (scope.history[name] as HistoryCollection<{ id: string }>).record(doc.id, doc, scope.position);
}

const roleName = (resource: string | null) => (resource === null ? 'roles' : 'resourceRoles');

/**
 * Which documents of the read model each environment event changes (see the
 * schema and facts projections): those are copied into the history after it.
 * A new event type fails to compile here until it says which.
 */
export const historyProjectionHandlers: EventHandlers<EnvEvent, HistoryScope, Promise<void>> = {
  ResourceCreated: (s, { data }) => copy(s, 'resources', data.id),
  ResourceDeleted: (s, { data }) => copy(s, 'resources', data.id),
  ResourceUpdated: (s, { data }) => copy(s, 'resources', data.id),
  // A resource's parts live in its document.
  ActionCreated: (s, { data }) => copyFound(s, 'resources', data.resource),
  ActionUpdated: (s, { data }) => copyFound(s, 'resources', data.resource),
  ActionDeleted: (s, { data }) => copyFound(s, 'resources', data.resource),
  AttributeCreated: (s, { data }) => copyFound(s, 'resources', data.resource),
  AttributeUpdated: (s, { data }) => copyFound(s, 'resources', data.resource),
  AttributeDeleted: (s, { data }) => copyFound(s, 'resources', data.resource),
  ActionGroupCreated: (s, { data }) => copyFound(s, 'resources', data.resource),
  ActionGroupUpdated: (s, { data }) => copyFound(s, 'resources', data.resource),
  ActionGroupDeleted: (s, { data }) => copyFound(s, 'resources', data.resource),
  RoleCreated: (s, { data }) => copy(s, roleName(data.resource), data.id),
  RoleUpdated: (s, { data }) => copy(s, roleName(data.resource), data.id),
  RoleDerivationsReplaced: (s, { data }) => copy(s, roleName(data.resource), data.id),
  ImplicitGrantAdded: (s, { data }) => copy(s, roleName(data.resource), data.id),
  ImplicitGrantRemoved: (s, { data }) => copy(s, roleName(data.resource), data.id),
  RoleExtendsReplaced: (s, { data }) => copy(s, roleName(data.resource), data.id),
  RoleDerivationConditionsSet: (s, { data }) => copy(s, roleName(data.resource), data.id),
  RoleDeleted: (s, { data }) => copy(s, roleName(data.resource), data.id),
  async RelationCreated(s, { data }) {
    await copy(s, 'relations', data.id);
    await copyFound(s, 'resources', data.objectResource);
  },
  async RelationDeleted(s, { data }) {
    await copy(s, 'relations', data.id);
    await copyFound(s, 'resources', data.objectResource);
  },
  TenantCreated: (s, { data }) => copy(s, 'tenants', data.id),
  TenantUpdated: (s, { data }) => copy(s, 'tenants', data.id),
  TenantDeleted: (s, { data }) => copy(s, 'tenants', data.id),
  UserCreated: (s, { data }) => copy(s, 'users', data.id),
  UserUpdated: (s, { data }) => copy(s, 'users', data.id),
  UserDeleted: (s, { data }) => copy(s, 'users', data.id),
  ResourceInstanceCreated: (s, { data }) => copy(s, 'instances', data.id),
  ResourceInstanceUpdated: (s, { data }) => copy(s, 'instances', data.id),
  async ResourceInstanceDeleted(s, { data }) {
    await copy(s, 'instances', data.id);
    // The facts projection drops tuples an older log left on the instance; their versions end here too.
    const ref = `${data.resource}:${data.key}`;
    // Read from the store: what the batch kept back of the tuples goes out first.
    await s.history.tuples.writePending();
    for (const side of ['subject', 'object'] as const) {
      const left = await s.history.tuples.versions.find({ environment_id: s.environmentId, [side]: ref, _to: { $gt: s.position } });
      for (const version of left) await copy(s, 'tuples', version._oid);
    }
  },
  async RoleAssigned(s, { data }) {
    await copy(s, 'assignments', data.id);
    // A tenant-level role is listed on the user document too.
    if (data.resourceInstance === null) await copyFound(s, 'users', data.user);
  },
  async RoleUnassigned(s, { data }) {
    await copy(s, 'assignments', data.id);
    if (data.resourceInstance === null) await copyFound(s, 'users', data.user);
  },
  RelationshipTupleCreated: (s, { data }) => copy(s, 'tuples', data.id),
  RelationshipTupleDeleted: (s, { data }) => copy(s, 'tuples', data.id),
  ConditionSetCreated: (s, { data }) => copy(s, 'conditionSets', data.id),
  ConditionSetUpdated: (s, { data }) => copy(s, 'conditionSets', data.id),
  ConditionSetDeleted: (s, { data }) => copy(s, 'conditionSets', data.id),
  SetRuleCreated: (s, { data }) => copy(s, 'setRules', data.id),
  SetRuleDeleted: (s, { data }) => copy(s, 'setRules', data.id),
  ProxyConfigCreated: (s, { data }) => copy(s, 'proxyConfigs', data.id),
  ProxyConfigUpdated: (s, { data }) => copy(s, 'proxyConfigs', data.id),
  ProxyConfigDeleted: (s, { data }) => copy(s, 'proxyConfigs', data.id),
  UserInviteCreated: (s, { data }) => copy(s, 'userInvites', data.id),
  UserInviteUpdated: (s, { data }) => copy(s, 'userInvites', data.id),
  UserInviteApproved: (s, { data }) => copy(s, 'userInvites', data.id),
  UserInviteDeleted: (s, { data }) => copy(s, 'userInvites', data.id),
  // Kept in the command state, not in a read model.
  AssertionSaved: 'ignored',
  AssertionDeleted: 'ignored',
};

const handles = handledTypes(eventTypes.env, historyProjectionHandlers);

/** Documents copied per read when a history starts after the log did. */
const COPY_PAGE = 1000;

/**
 * Maintains the history read model. Runs after the core projections (it copies
 * what they wrote), in the same batch transaction, so the history is exactly as
 * far as the read models. Also keeps each environment's clock (event times to
 * positions, for `as_of` given as a time).
 *
 * When it first runs on read models that are already at position N (the
 * feature was added to a running deployment), the history starts at N: every
 * current document becomes a version from N, and earlier positions are
 * refused by readers (rebuilding the read models from the log gives the whole
 * history).
 */
export function historyProjection(rm: ReadModels): Projection<EnvEvent> {
  const history = new HistoryCollections(rm.store);
  // What the core projections write, handed over rather than read back (cleared as it is used, below).
  rm.written?.enable();
  let started = false;
  const clockHeads = new Map<string, ClockDoc | null>();
  /** Position of the batch's last event this projection handles, where the versions it kept back go out; null: none kept. */
  let batchEnd: number | null = null;
  /** Position of the last event applied, to tell a batch applied again after it failed. */
  let lastApplied = 0;
  return {
    name: 'history',
    handles,
    async prepare(batch: RecordedEvent[]) {
      // A batch applied again after it failed: the clock heads it moved may be gone with it (rolled back on
      // SQLite, a write that never landed on MongoDB), and a head kept here would skip their events on replay.
      if (batch[0]!.position <= lastApplied) clockHeads.clear();
      // Nothing a failed attempt wrote may be handed over (rolled back on SQLite; rewritten on replay elsewhere).
      rm.written?.clear();
      if (!started) {
        if ((await history.since()) === null) {
          const since = batch[0]!.position - 1;
          if (since > 0) await copyCurrentDocuments(rm, history, since);
          await history.meta.put({ id: SINCE, since });
        }
        started = true;
      }
      // A document changed by several events of the batch is looked up once and its versions written at the end
      // (what a failed batch kept back is dropped here: it was rolled back, or will be replayed).
      batchEnd = batch.filter((event) => isDomainEvent(event) && handles.has(event.type as EnvEvent['type'])).at(-1)?.position ?? null;
      if (batchEnd !== null) history.beginBatch();
    },
    async apply(event) {
      const environmentId = streamCategory(event.streamId).id;
      lastApplied = event.position;
      await tick(history, clockHeads, environmentId, event);
      await dispatch(historyProjectionHandlers, event.type, { rm, history, environmentId, position: event.position }, event);
      // Copied: kept no longer than the event that wrote it, so what is handed over stays small.
      rm.written?.clear();
      if (batchEnd !== null && event.position >= batchEnd) {
        batchEnd = null;
        await history.endBatch();
      }
    },
  };
}

/**
 * Moves the environment's clock when this event is later than every event of
 * its stream before it. The latest entry is kept in memory; after a restart it
 * is read back from the entries at or after the event's time (usually none).
 */
async function tick(history: HistoryCollections, heads: Map<string, ClockDoc | null>, environmentId: string, event: RecordedEvent) {
  const at = utc(event.metadata.timestamp);
  if (at === null) return;
  let head = heads.get(environmentId);
  if (head === undefined) {
    const later = await history.clock.find({ id: clockAfter(environmentId, at) }, { sortBy: 'id' });
    head = later.at(-1) ?? (await history.clock.get(clockId(environmentId, at)));
    if (heads.size >= 10_000) heads.clear();
    heads.set(environmentId, head);
  }
  // A replayed event (its position or time already reached) never moves the clock.
  if (head !== null && (at <= head.at || event.position <= head.first)) return;
  const entry = { id: clockId(environmentId, at), environment_id: environmentId, at, first: event.position };
  heads.set(environmentId, entry);
  await history.clock.put(entry);
}

/** ISO 8601 in UTC with milliseconds (`toISOString()`), so that times compare as strings; null if it is no time. */
function utc(time: string): string | null {
  if (time.length === 24 && time.endsWith('Z')) return time;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

async function copyCurrentDocuments(rm: ReadModels, history: HistoryCollections, since: number): Promise<void> {
  const names: VersionedName[] = [
    'resources',
    'resourceRoles',
    'roles',
    'relations',
    'tenants',
    'users',
    'instances',
    'assignments',
    'tuples',
    'conditionSets',
    'setRules',
    'userInvites',
  ];
  for (const name of names) {
    const current = rm[name] as Collection<{ id: string }>;
    const versions = (history[name] as HistoryCollection<{ id: string }>).versions;
    for (let after: string | null = null; ;) {
      const page: Array<{ id: string }> = await current.find(after === null ? {} : { id: { $gt: after } }, {
        sortBy: 'id',
        limit: COPY_PAGE,
      });
      await versions.putMany(page.map((doc) => versionOf(doc, since)));
      if (page.length < COPY_PAGE) break;
      after = page.at(-1)!.id;
    }
  }
}
