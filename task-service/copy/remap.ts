import type { EnvEvent, EventHandlers, EventMetadata, NewEvent, RecordedEvent } from '../../shared/events';
import type { TraceCarrier } from '../../shared/tracing/spans';
import { CURRENT_SCHEMA_VERSION, dispatch, isEventOf } from '../../shared/events';
import { attributeDefsOf, attributesData } from '../../shared/domain/env/attributes';
import { copiedId } from '../../shared/ids';
import { SerialisedEvent } from '../../shared/eventstore/event-json';
import type { StoredEventText } from '../../shared/eventstore/port';

type NewId = (sourceId: string) => string;

/** Replaces the object's own id: every event names its object by id (and its references by key). */
const withNewId = <T extends string, D extends { id: string }>(newId: NewId, event: { type: T; data: D }) => ({
  type: event.type,
  data: { ...event.data, id: newId(event.data.id) },
});

/** How each event type's ids are remapped; keyed by every type, so a new one must say where its ids are. */
export const idRemapping: EventHandlers<EnvEvent, NewId, EnvEvent> = {
  ResourceCreated: (newId, { type, data }) => ({
    type,
    data: {
      ...data,
      id: newId(data.id),
      actions: data.actions.map((a) => ({ ...a, id: newId(a.id) })),
      // Attribute ids (derived ones of older events included) are remapped as the target's own.
      attributes: attributesData(attributeDefsOf(data.id, data.attributes).map((a) => ({ ...a, id: newId(a.id) }))),
    },
  }),
  ResourceDeleted: withNewId,
  ResourceUpdated: withNewId,
  ActionCreated: withNewId,
  ActionUpdated: withNewId,
  ActionDeleted: withNewId,
  AttributeCreated: withNewId,
  AttributeUpdated: withNewId,
  AttributeDeleted: withNewId,
  ActionGroupCreated: withNewId,
  ActionGroupUpdated: withNewId,
  ActionGroupDeleted: withNewId,
  RoleCreated: withNewId,
  RoleUpdated: withNewId,
  RoleDerivationsReplaced: withNewId,
  ImplicitGrantAdded: withNewId,
  ImplicitGrantRemoved: withNewId,
  RoleExtendsReplaced: withNewId,
  RoleDerivationConditionsSet: withNewId,
  RoleDeleted: withNewId,
  RelationCreated: withNewId,
  RelationDeleted: withNewId,
  TenantCreated: withNewId,
  TenantUpdated: withNewId,
  TenantDeleted: withNewId,
  UserCreated: withNewId,
  UserUpdated: withNewId,
  UserDeleted: withNewId,
  ResourceInstanceCreated: withNewId,
  ResourceInstanceUpdated: withNewId,
  ResourceInstanceDeleted: withNewId,
  RoleAssigned: withNewId,
  RoleUnassigned: withNewId,
  RoleAssignmentExpirySet: withNewId,
  RoleAssignmentExpired: withNewId,
  RelationshipTupleCreated: withNewId,
  RelationshipTupleDeleted: withNewId,
  RelationshipTupleExpirySet: withNewId,
  RelationshipTupleExpired: withNewId,
  ConditionSetCreated: withNewId,
  ConditionSetUpdated: withNewId,
  ConditionSetDeleted: withNewId,
  ProxyConfigCreated: withNewId,
  ProxyConfigUpdated: withNewId,
  ProxyConfigDeleted: withNewId,
  SetRuleCreated: withNewId,
  SetRuleDeleted: withNewId,
  UserInviteCreated: withNewId,
  UserInviteUpdated: withNewId,
  UserInviteApproved: withNewId,
  UserInviteDeleted: withNewId,
  AssertionSaved: withNewId,
  AssertionDeleted: withNewId,
};

/**
 * Turns a source event into the target's: every object id is replaced by an id
 * derived from (target environment, source id), so the same source object
 * always becomes the same target object, and a resumed or redelivered copy
 * writes exactly the events it would have written the first time. Keys (which
 * events use to reference each other) stay as they are.
 */
export function remapIds(event: EnvEvent, targetEnvironmentId: string): EnvEvent {
  const newId = (sourceId: string) => copiedId(targetEnvironmentId, sourceId);
  // An 'ignored' type would hold no id: it is copied as it is.
  return dispatch(idRemapping, event.type, newId, event) ?? event;
}

/** Where a copy comes from: the task, who asked (on the request), and when. */
export interface CopyOrigin {
  taskId: string;
  /** The requesting key: on the new environment's EnvironmentCreated (copied events are the system's). */
  actor: string | null;
  requestId?: string;
  /** When the copy was requested: the copied objects' created_at (stable across retries). */
  timestamp: string;
  /** The copy task's trace context when it is traced: every event the copy writes carries it (docs/tracing.md). */
  trace?: TraceCarrier;
}

/**
 * `causationId` names the source event (`<stream>@<version>`): a resumed copy
 * reads it from the target's last event to know where to go on.
 */
export const causationOf = (source: Pick<RecordedEvent, 'streamId' | 'streamVersion'>) => `${source.streamId}@${source.streamVersion}`;

export function parseCausation(causationId: string | undefined): { streamId: string; version: number } | null {
  const match = causationId ? /^(.+)@(\d+)$/.exec(causationId) : null;
  return match ? { streamId: match[1]!, version: Number(match[2]) } : null;
}

/**
 * Copied events are written by the system (actor null, as for every task);
 * the requesting key and request id are on the task's request event, which
 * `correlationId` names. Kept small: a copy writes one per source event.
 */
export function copyMetadata(origin: CopyOrigin, causationId?: string): EventMetadata {
  const metadata: EventMetadata = {
    actor: null,
    correlationId: origin.taskId,
    timestamp: origin.timestamp,
    schemaVersion: CURRENT_SCHEMA_VERSION,
  };
  if (origin.trace?.traceparent) metadata.traceparent = origin.trace.traceparent;
  if (origin.trace?.tracestate) metadata.tracestate = origin.trace.tracestate;
  if (causationId) metadata.causationId = causationId;
  return metadata;
}

export function copiedEvent(source: RecordedEvent, targetEnvironmentId: string, origin: CopyOrigin): NewEvent {
  if (!isEventOf('env', source)) throw new Error(`Only environment events are copied, not ${source.type}`);
  const remapped = remapIds(source, targetEnvironmentId);
  return { type: remapped.type, data: remapped.data, metadata: copyMetadata(origin, causationOf(source)) };
}

/**
 * copiedEvent for a source event read as its stored text (a copy without key
 * filters): an event whose copy differs from it by its own id alone, with the id
 * as the text's first key, becomes the same text with the new id, neither parsed
 * nor serialised again (those were a large part of the copying thread's time,
 * docs/bench-history/design-choices.md). Any other event is parsed and copied as copiedEvent does.
 */
export function copiedEventFromText(source: StoredEventText, targetEnvironmentId: string, origin: CopyOrigin): NewEvent {
  const leading = idRemapping[source.type as EnvEvent['type']] === withNewId ? leadingId(source.json.data) : null;
  if (leading === null) {
    const { json, ...fields } = source;
    const parsed: RecordedEvent = {
      ...fields,
      data: JSON.parse(json.data) as unknown,
      metadata: JSON.parse(json.metadata) as RecordedEvent['metadata'],
    };
    return copiedEvent(parsed, targetEnvironmentId, origin);
  }
  const data = `{"id":${JSON.stringify(copiedId(targetEnvironmentId, leading.id))}${source.json.data.slice(leading.end)}`;
  const cause = causationOf(source);
  const metadata = copyMetadata(origin, cause);
  return new SerialisedEvent(source.type, { data, metadata: copyMetadataJson(origin, cause) }, metadata);
}

const LEADING_ID = '{"id":"';

/**
 * The object's id when its JSON text opens with it (`{"id":"…"`), and where the
 * id's string ends; null otherwise, or when the id holds an escape. The log's
 * text is JSON.stringify's, which writes a key once: the first key is the
 * top-level id (a nested object's "id" comes later).
 */
function leadingId(text: string): { id: string; end: number } | null {
  if (!text.startsWith(LEADING_ID)) return null;
  const close = text.indexOf('"', LEADING_ID.length);
  if (close < 0) return null;
  const id = text.slice(LEADING_ID.length, close);
  return id.includes('\\') ? null : { id, end: close + 1 };
}

/** copyMetadata's JSON text: the origin's part serialised once per copy, then the causation. */
const originJson = new WeakMap<CopyOrigin, string>();
function copyMetadataJson(origin: CopyOrigin, causationId: string): string {
  let head = originJson.get(origin);
  if (head === undefined) {
    head = JSON.stringify(copyMetadata(origin)).slice(0, -1);
    originJson.set(origin, head);
  }
  return `${head},"causationId":${JSON.stringify(causationId)}}`;
}
