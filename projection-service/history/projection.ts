import type { EnvEvent, EventHandlers, RecordedEvent } from '../../shared/events';
import { dispatch, eventTypes, handledTypes, isEventOf, streamCategory } from '../../shared/events';
import type { Collection } from '../../shared/docstore/port';
import type { Projection } from '../../shared/read-models/projection';
import type { ReadModels } from '../../shared/read-models/read-models';
import {
  clockAfter,
  clockId,
  HistoryCollections,
  SINCE,
  versionedSpecs,
  type ClockDoc,
  type VersionedName,
} from '../../shared/read-models/history/history';

/**
 * A document of a versioned collection an event changes, named as the event names it: by id, or
 * by key in its environment (the resource an action belongs to, the user a tenant role is listed on).
 */
export type VersionTarget = { name: VersionedName; id: string } | { name: 'resources' | 'users'; key: string };

const byId = (name: VersionedName, id: string): VersionTarget[] => [{ name, id }];
const roleName = (resource: string | null) => (resource === null ? 'roles' : 'resourceRoles');

/**
 * Which documents of the read model each environment event changes (see the
 * schema and facts projections): the versions the projections write are kept
 * as they write them (versioning.ts); these are read for a batch at once,
 * before its events are applied. A new event type fails to compile here until
 * it says which.
 */
export const historyProjectionHandlers: EventHandlers<EnvEvent, void, VersionTarget[]> = {
  ResourceCreated: (_, { data }) => byId('resources', data.id),
  ResourceDeleted: (_, { data }) => byId('resources', data.id),
  ResourceUpdated: (_, { data }) => byId('resources', data.id),
  // A resource's parts live in its document.
  ActionCreated: (_, { data }) => [{ name: 'resources', key: data.resource }],
  ActionUpdated: (_, { data }) => [{ name: 'resources', key: data.resource }],
  ActionDeleted: (_, { data }) => [{ name: 'resources', key: data.resource }],
  AttributeCreated: (_, { data }) => [{ name: 'resources', key: data.resource }],
  AttributeUpdated: (_, { data }) => [{ name: 'resources', key: data.resource }],
  AttributeDeleted: (_, { data }) => [{ name: 'resources', key: data.resource }],
  ActionGroupCreated: (_, { data }) => [{ name: 'resources', key: data.resource }],
  ActionGroupUpdated: (_, { data }) => [{ name: 'resources', key: data.resource }],
  ActionGroupDeleted: (_, { data }) => [{ name: 'resources', key: data.resource }],
  RoleCreated: (_, { data }) => byId(roleName(data.resource), data.id),
  RoleUpdated: (_, { data }) => byId(roleName(data.resource), data.id),
  RoleDerivationsReplaced: (_, { data }) => byId(roleName(data.resource), data.id),
  ImplicitGrantAdded: (_, { data }) => byId(roleName(data.resource), data.id),
  ImplicitGrantRemoved: (_, { data }) => byId(roleName(data.resource), data.id),
  RoleExtendsReplaced: (_, { data }) => byId(roleName(data.resource), data.id),
  RoleDerivationConditionsSet: (_, { data }) => byId(roleName(data.resource), data.id),
  RoleDeleted: (_, { data }) => byId(roleName(data.resource), data.id),
  RelationCreated: (_, { data }) => [
    { name: 'relations', id: data.id },
    { name: 'resources', key: data.objectResource },
  ],
  RelationDeleted: (_, { data }) => [
    { name: 'relations', id: data.id },
    { name: 'resources', key: data.objectResource },
  ],
  TenantCreated: (_, { data }) => byId('tenants', data.id),
  TenantUpdated: (_, { data }) => byId('tenants', data.id),
  TenantDeleted: (_, { data }) => byId('tenants', data.id),
  UserCreated: (_, { data }) => byId('users', data.id),
  UserUpdated: (_, { data }) => byId('users', data.id),
  UserDeleted: (_, { data }) => byId('users', data.id),
  ResourceInstanceCreated: (_, { data }) => byId('instances', data.id),
  ResourceInstanceUpdated: (_, { data }) => byId('instances', data.id),
  // The facts projection also drops tuples an older log left on the instance (read when it does).
  ResourceInstanceDeleted: (_, { data }) => byId('instances', data.id),
  // A tenant-level role is listed on the user document too.
  RoleAssigned: (_, { data }) => [
    { name: 'assignments', id: data.id },
    ...(data.resourceInstance === null ? [{ name: 'users' as const, key: data.user }] : []),
  ],
  RoleUnassigned: (_, { data }) => [
    { name: 'assignments', id: data.id },
    ...(data.resourceInstance === null ? [{ name: 'users' as const, key: data.user }] : []),
  ],
  RoleAssignmentExpirySet: (_, { data }) => byId('assignments', data.id),
  RoleAssignmentExpired: (_, { data }) => [
    { name: 'assignments', id: data.id },
    ...(data.resourceInstance === null ? [{ name: 'users' as const, key: data.user }] : []),
  ],
  RelationshipTupleCreated: (_, { data }) => byId('tuples', data.id),
  RelationshipTupleDeleted: (_, { data }) => byId('tuples', data.id),
  RelationshipTupleExpirySet: (_, { data }) => byId('tuples', data.id),
  RelationshipTupleExpired: (_, { data }) => byId('tuples', data.id),
  ConditionSetCreated: (_, { data }) => byId('conditionSets', data.id),
  ConditionSetUpdated: (_, { data }) => byId('conditionSets', data.id),
  ConditionSetDeleted: (_, { data }) => byId('conditionSets', data.id),
  SetRuleCreated: (_, { data }) => byId('setRules', data.id),
  SetRuleDeleted: (_, { data }) => byId('setRules', data.id),
  ProxyConfigCreated: (_, { data }) => byId('proxyConfigs', data.id),
  ProxyConfigUpdated: (_, { data }) => byId('proxyConfigs', data.id),
  ProxyConfigDeleted: (_, { data }) => byId('proxyConfigs', data.id),
  UserInviteCreated: (_, { data }) => byId('userInvites', data.id),
  UserInviteUpdated: (_, { data }) => byId('userInvites', data.id),
  UserInviteApproved: (_, { data }) => byId('userInvites', data.id),
  UserInviteDeleted: (_, { data }) => byId('userInvites', data.id),
  // Kept in the command state, not in a read model.
  AssertionSaved: 'ignored',
  AssertionDeleted: 'ignored',
};

const handles = handledTypes(eventTypes.env, historyProjectionHandlers);

/** Documents stamped per read when a history starts after the log did. */
const STAMP_PAGE = 1000;

/**
 * Maintains the history read model: turns on the read models' versioning
 * (`rm.versioning`: the projections' writes keep `_from` on the current
 * documents and close the versions they replace, in the same batch
 * transaction), tells it each event's position, reads at once what a batch
 * will change, and keeps each environment's clock (event times to positions,
 * for `as_of` given as a time).
 *
 * When it first runs on read models that are already at position N (the
 * feature was added to a running deployment), the history starts at N: every
 * current document is stamped as from N, and earlier positions are refused
 * by readers (rebuilding the read models from the log gives the whole
 * history).
 */
export function historyProjection(rm: ReadModels): Projection<EnvEvent> {
  const history = new HistoryCollections(rm.store);
  rm.versioning.enable();
  let started = false;
  const clockHeads = new Map<string, ClockDoc | null>();
  /** Position of the last event applied, to tell a batch applied again after it failed. */
  let lastApplied = 0;
  return {
    name: 'history',
    // 2: the versions of assignments and tuples carry their `expires_at` (docs/expiring-access.md).
    version: 2,
    handles,
    async prepare(batch: RecordedEvent[]) {
      // A batch applied again after it failed: the clock heads it moved may be gone with it (rolled back on
      // SQLite, a write that never landed on MongoDB), and a head kept here would skip their events on replay.
      if (batch[0]!.position <= lastApplied) clockHeads.clear();
      // Nothing a failed attempt wrote may be taken as stored (rolled back on SQLite; rewritten on replay elsewhere).
      rm.versioning.beginBatch();
      if (!started) {
        if ((await history.since()) === null) {
          const since = batch[0]!.position - 1;
          if (since > 0) await stampCurrentDocuments(history, since);
          await history.meta.put({ id: SINCE, since });
        }
        started = true;
      }
      await prefetch(rm, batch);
    },
    begin(event) {
      rm.versioning.at(event.position);
    },
    async apply(event) {
      lastApplied = event.position;
      await tick(history, clockHeads, streamCategory(event.streamId).id, event);
    },
  };
}

/** Reads, many a query, the documents the batch's events change (what `historyProjectionHandlers` names). */
async function prefetch(rm: ReadModels, batch: RecordedEvent[]): Promise<void> {
  const ids = new Map<VersionedName, string[]>();
  const keys = new Map<string, { name: 'resources' | 'users'; environmentId: string; keys: string[] }>();
  for (const event of batch) {
    if (!isEventOf('env', event)) continue;
    const targets: VersionTarget[] | undefined = dispatch(historyProjectionHandlers, event.type, undefined, event as never);
    if (!targets) continue;
    const environmentId = streamCategory(event.streamId).id;
    for (const target of targets) {
      if ('id' in target) {
        const list = ids.get(target.name) ?? [];
        list.push(target.id);
        ids.set(target.name, list);
      } else {
        const group = `${target.name} ${environmentId}`;
        const found = keys.get(group) ?? { name: target.name, environmentId, keys: [] };
        found.keys.push(target.key);
        keys.set(group, found);
      }
    }
  }
  for (const { name, environmentId, keys: wanted } of keys.values()) {
    const current = rm[name] as Collection<{ id: string }>;
    const unique = [...new Set(wanted)];
    for (let i = 0; i < unique.length; i += KEYS_PER_READ) {
      const found = await current.find({ environment_id: environmentId, key: { $in: unique.slice(i, i + KEYS_PER_READ) } }, { fields: [] });
      const list = ids.get(name) ?? [];
      list.push(...found.map((doc) => doc.id));
      ids.set(name, list);
    }
  }
  for (const [name, list] of ids) await rm.versioning.prefetch(name, list);
}

/** Keys of one environment looked up by one query (`$in`). */
const KEYS_PER_READ = 500;

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

/**
 * Stamps every current document without `_from` as from `since` (the history starts there): it
 * was what it is at least since then, and a read as of a position from `since` on finds it.
 */
async function stampCurrentDocuments(history: HistoryCollections, since: number): Promise<void> {
  for (const name of Object.keys(versionedSpecs) as VersionedName[]) {
    const current = history[name].current as Collection<{ id: string; _from?: number | null }>;
    for (let after: string | null = null; ;) {
      const page: Array<{ id: string; _from?: number | null }> = await current.find(after === null ? {} : { id: { $gt: after } }, {
        sortBy: 'id',
        limit: STAMP_PAGE,
      });
      const unstamped = page.filter((doc) => typeof doc._from !== 'number');
      if (unstamped.length > 0) await current.putMany(unstamped.map((doc) => ({ ...doc, _from: since })));
      if (page.length < STAMP_PAGE) break;
      after = page.at(-1)!.id;
    }
  }
}
