import type { RecordedEvent } from '../../shared/events';
import { eventJson, SerialisedEvent } from '../../shared/eventstore/event-json';
import type { StoredEventText } from '../../shared/eventstore/port';
import { deterministicId } from '../../shared/ids';
import { copiedEvent, copiedEventFromText, parseCausation, remapIds } from './remap';
import { inScope } from './scope';

const recorded = (type: string, data: unknown, streamVersion = 3): RecordedEvent => ({
  type,
  data,
  streamId: 'env-src',
  streamVersion,
  position: 99,
  metadata: { actor: 'someone', timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
});
/** A resource type with one action: its copy gets new ids for both. */
const docResource = {
  id: 'r1',
  key: 'doc',
  name: 'Doc',
  description: '',
  attributes: {},
  actions: [{ id: 'a1', key: 'read', name: 'read', description: '' }],
};
const origin = { taskId: 'task-1', actor: 'key-1', requestId: 'req-1', timestamp: '2026-02-02T00:00:00.000Z' };

describe('copying an event', () => {
  it('gives objects and actions new ids derived from the target and the source id, and keeps keys', () => {
    const event = remapIds(
      {
        type: 'ResourceCreated',
        data: docResource,
      },
      'target',
    );
    expect(event).toEqual({
      type: 'ResourceCreated',
      data: {
        id: deterministicId('target', 'r1'),
        key: 'doc',
        name: 'Doc',
        description: '',
        attributes: {},
        actions: [{ id: deterministicId('target', 'a1'), key: 'read', name: 'read', description: '' }],
      },
    });
  });

  it('maps an object to the same id in every event that names it', () => {
    const assigned = remapIds(
      { type: 'RoleAssigned', data: { id: 'x', user: 'u', role: 'r', resource: null, tenant: 't', resourceInstance: null } },
      'target',
    );
    const unassigned = remapIds(
      { type: 'RoleUnassigned', data: { id: 'x', user: 'u', role: 'r', resource: null, tenant: 't', resourceInstance: null } },
      'target',
    );
    expect(assigned.data.id).toBe(unassigned.data.id);
    expect(
      remapIds({ type: 'TenantCreated', data: { id: 'x', key: 't', name: 't', description: '', attributes: {} } }, 'other').data.id,
    ).not.toBe(assigned.data.id);
  });

  it('says which task and which source event a copied event comes from, at the request time, written by the system', () => {
    const copied = copiedEvent(
      recorded('TenantCreated', { id: 't1', key: 'acme', name: 'Acme', description: '', attributes: {} }, 17),
      'target',
      origin,
    );
    expect(copied.metadata).toEqual({
      actor: null,
      correlationId: 'task-1',
      causationId: 'env-src@17',
      timestamp: origin.timestamp,
      schemaVersion: 1,
    });
    expect(parseCausation(copied.metadata.causationId)).toEqual({ streamId: 'env-src', version: 17 });
    expect(parseCausation(undefined)).toBeNull();
  });

  it('copies the policy always and the facts only with scope.facts', () => {
    for (const type of [
      'ResourceCreated',
      'RoleCreated',
      'RoleDerivationsReplaced',
      'ImplicitGrantAdded',
      'RelationCreated',
      'RelationDeleted',
    ]) {
      expect({ type, copied: inScope(type, { facts: false }) }).toEqual({ type, copied: true });
    }
    for (const type of [
      'TenantCreated',
      'UserCreated',
      'ResourceInstanceCreated',
      'RoleAssigned',
      'RoleUnassigned',
      'RelationshipTupleCreated',
      'RelationshipTupleDeleted',
    ]) {
      expect({ type, policy: inScope(type, { facts: false }), facts: inScope(type, { facts: true }) }).toEqual({
        type,
        policy: false,
        facts: true,
      });
    }
    expect(inScope('TaskStarted', { facts: true })).toBe(false);
  });

  describe('from its stored text (a copy without key filters)', () => {
    /** The event as the log stores it, and as it reads it parsed. */
    const stored = (type: string, data: unknown): { text: StoredEventText; parsed: RecordedEvent } => {
      const parsed = recorded(type, data, 8);
      const { data: _data, metadata, ...fields } = parsed;
      return { text: { ...fields, json: { data: JSON.stringify(data), metadata: JSON.stringify(metadata) } }, parsed };
    };
    /** What the log gets for an event: its data and metadata as the JSON values it stores. */
    const written = (event: Parameters<typeof eventJson>[0]) => {
      const json = eventJson(event);
      return { type: event.type, data: JSON.parse(json.data) as unknown, metadata: JSON.parse(json.metadata) as unknown };
    };

    it('changes the id in the text, and the log gets what the parsed copy would give it', () => {
      // A nested "id" (an attribute) is the user's, not the object's: it stays.
      const { text, parsed } = stored('UserCreated', { id: 'u1', key: 'alice', email: null, attributes: { id: 'u1', n: { id: 'u1' } } });
      const copied = copiedEventFromText(text, 'target', origin);
      expect(copied).toBeInstanceOf(SerialisedEvent);
      const expected = copiedEvent(parsed, 'target', origin);
      expect(written(copied)).toEqual({ type: expected.type, data: expected.data, metadata: expected.metadata });
      expect(copied.data).toEqual(expected.data);
      expect(copied.metadata).toEqual(expected.metadata);
      expect(eventJson(copied).data).toBe(text.json.data.replace('"u1"', JSON.stringify((expected.data as { id: string }).id)));
    });

    it('parses and copies an event whose copy changes more than its id, whose id is not first, or whose id has an escape', () => {
      const cases = [
        stored('ResourceCreated', docResource),
        stored('TenantCreated', { key: 'acme', id: 't1', name: 'Acme', description: '', attributes: {} }),
        stored('TenantCreated', { id: 't"1', key: 'acme', name: 'Acme', description: '', attributes: {} }),
      ];
      for (const { text, parsed } of cases) {
        const copied = copiedEventFromText(text, 'target', origin);
        expect(copied).not.toBeInstanceOf(SerialisedEvent);
        expect(copied).toEqual(copiedEvent(parsed, 'target', origin));
      }
    });

    it("carries the copy task's trace context in every copied event's metadata, parsed or copied as text", () => {
      const trace = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=1' };
      const traced = { ...origin, trace };
      const { text, parsed } = stored('UserCreated', { id: 'u1', key: 'alice', email: null, attributes: {} });
      const asText = copiedEventFromText(text, 'target', traced);
      expect(written(asText).metadata).toMatchObject(trace);
      expect(copiedEvent(parsed, 'target', traced).metadata).toMatchObject(trace);
      // Untraced, nothing of the kind.
      expect(written(copiedEventFromText(text, 'target', origin)).metadata).not.toHaveProperty('traceparent');
    });
  });
});
