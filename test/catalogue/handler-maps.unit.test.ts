import { envFold } from '../../shared/domain/env/fold';
import { orgFold } from '../../shared/domain/org/decider';
import { taskFold } from '../../shared/domain/task/decider';
import type { EnvEvent, EventHandlers, RecordedEvent, StreamKind } from '../../shared/events';
import { domainEventSchema, eventTypes, handledTypes, isDomainEvent, isEventOf, kindOf, streamKinds } from '../../shared/events';
import { factsProjectionHandlers } from '../../projection-service/projections/facts-projection';
import { orgProjectionHandlers } from '../../projection-service/projections/org-projection';
import { schemaProjectionHandlers } from '../../projection-service/projections/schema-projection';
import { grantsProjectionHandlers } from '../../projection-service/grants/projection';
import { historyProjectionHandlers } from '../../projection-service/history/projection';
import { taskProjectionHandlers } from '../../task-service/task-projection';
import { idRemapping } from '../../task-service/copy/remap';
import { copyPartOf } from '../../task-service/copy/scope';
import { envAuditRefs, orgAuditRefs, taskAuditRefs } from '../../projection-service/audit/refs';
import { envEventPresenters, orgEventPresenters, taskEventPresenters } from '../../command-service/audit/present-event';

/** Every map that must say what it does with each event type of its stream kind. */
const maps: Array<{ name: string; kind: StreamKind; map: object }> = [
  { name: 'environment fold (command state and copy)', kind: 'env', map: envFold },
  { name: 'schema projection', kind: 'env', map: schemaProjectionHandlers },
  { name: 'facts projection', kind: 'env', map: factsProjectionHandlers },
  { name: 'grants projection', kind: 'env', map: grantsProjectionHandlers },
  { name: 'history projection', kind: 'env', map: historyProjectionHandlers },
  { name: 'copy: id remapping', kind: 'env', map: idRemapping },
  { name: 'copy: policy or facts', kind: 'env', map: copyPartOf },
  { name: 'organisation fold', kind: 'org', map: orgFold },
  { name: 'org projection', kind: 'org', map: orgProjectionHandlers },
  { name: 'task fold', kind: 'task', map: taskFold },
  { name: 'task projection', kind: 'task', map: taskProjectionHandlers },
  { name: 'audit log: what an environment event names', kind: 'env', map: envAuditRefs },
  { name: 'audit log: what an organisation event names', kind: 'org', map: orgAuditRefs },
  { name: 'audit log: what a task event names', kind: 'task', map: taskAuditRefs },
  { name: 'audit log: an environment event as shown', kind: 'env', map: envEventPresenters },
  { name: 'audit log: an organisation event as shown', kind: 'org', map: orgEventPresenters },
  { name: 'audit log: a task event as shown', kind: 'task', map: taskEventPresenters },
];

const recorded = (type: string, data: unknown = {}): RecordedEvent => ({
  type,
  data,
  streamId: 'env-e1',
  streamVersion: 0,
  position: 1,
  metadata: { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
});

describe('the event catalogue', () => {
  it('lists every type of the zod union exactly once, under one stream kind', () => {
    const listed = streamKinds.flatMap((kind) => eventTypes[kind]);
    const inUnion = domainEventSchema.options.map((schema) => schema.shape.type.value);
    expect([...listed].sort()).toEqual([...inUnion].sort());
    expect(new Set(listed).size).toBe(listed.length);
    expect(kindOf('RelationshipTupleCreated')).toBe('env');
    expect(kindOf('TaskStarted')).toBe('task');
    expect(kindOf('SomethingElse')).toBeUndefined();
  });

  it('narrows events read from the log by their type, and only to their own kind', () => {
    expect(isEventOf('env', recorded('RoleAssigned'))).toBe(true);
    expect(isEventOf('org', recorded('RoleAssigned'))).toBe(false);
    expect(isDomainEvent(recorded('ProjectCreated'))).toBe(true);
    expect(isDomainEvent(recorded('NoSuchEvent'))).toBe(false);
  });
});

describe.each(maps)('$name', ({ kind, map }) => {
  it('has an entry for every event type of its stream kind, and for no other', () => {
    const missing = eventTypes[kind].filter((type) => !Object.hasOwn(map, type));
    const unknown = Object.keys(map).filter((type) => kindOf(type) !== kind);
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });
});

describe('handler maps', () => {
  const some: Partial<EventHandlers<EnvEvent, null>> = { RoleAssigned: () => undefined, RoleUnassigned: 'ignored' };

  it('handle the types that are not ignored', () => {
    const handles = handledTypes(eventTypes.env, grantsProjectionHandlers);
    expect(handles.has('RoleAssigned')).toBe(true);
    expect(handles.has('RoleCreated')).toBe(false);
    expect([...handledTypes(eventTypes.org, orgProjectionHandlers)]).toEqual(eventTypes.org);
  });

  it('refuse to derive `handles` from a map that misses a type, should one escape the type check', () => {
    expect(() => handledTypes(eventTypes.env, some as EventHandlers<EnvEvent, null>)).toThrow(/RoleCreated/);
  });

  it('fail to compile without an entry for each type', () => {
    // @ts-expect-error -- a map without RoleCreated and the others is not an EventHandlers.
    const incomplete: EventHandlers<EnvEvent, null> = { RoleAssigned: () => undefined };
    expect(incomplete).toBeDefined();
  });
});
