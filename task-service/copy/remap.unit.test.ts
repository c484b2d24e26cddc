import type { RecordedEvent } from '../../shared/events';
import { deterministicId } from '../../shared/ids';
import { copiedEvent, parseCausation, remapIds } from './remap';
import { inScope } from './scope';

const recorded = (type: string, data: unknown, streamVersion = 3): RecordedEvent => ({
  type,
  data,
  streamId: 'env-src',
  streamVersion,
  position: 99,
  metadata: { actor: 'someone', timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
});
const origin = { taskId: 'task-1', actor: 'key-1', requestId: 'req-1', timestamp: '2026-02-02T00:00:00.000Z' };

describe('copying an event', () => {
  it('gives objects and actions new ids derived from the target and the source id, and keeps keys', () => {
    const event = remapIds(
      {
        type: 'ResourceCreated',
        data: {
          id: 'r1',
          key: 'doc',
          name: 'Doc',
          description: '',
          attributes: {},
          actions: [{ id: 'a1', key: 'read', name: 'read', description: '' }],
        },
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
});
