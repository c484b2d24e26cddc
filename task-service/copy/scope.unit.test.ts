import type { EnvEvent } from '../../shared/events';
import { passes, scopedEvent, type CopyScope } from './scope';

describe('copy scope filters', () => {
  it('include/exclude patterns with * wildcards; an absent or empty include takes every key', () => {
    expect(passes(undefined, 'doc')).toBe(true);
    expect(passes({ include: [] }, 'doc')).toBe(true);
    expect(passes({ include: ['doc*'] }, 'doc_draft')).toBe(true);
    expect(passes({ include: ['doc*'] }, 'folder')).toBe(false);
    expect(passes({ include: ['*'], exclude: ['*_draft'] }, 'doc_draft')).toBe(false);
    expect(passes({ exclude: ['doc'] }, 'doc2')).toBe(true);
    // Only `*` is special: a dot or a bracket is itself.
    expect(passes({ include: ['a.c'] }, 'abc')).toBe(false);
    expect(passes({ include: ['[x]'] }, '[x]')).toBe(true);
  });

  const scope: CopyScope = { facts: true, resources: { exclude: ['secret'] }, roles: { exclude: ['admin'] } };
  const kept = (event: EnvEvent) => scopedEvent(event, scope);

  it('a resource type left out takes its roles, relations, instances, tuples and assignments with it', () => {
    expect(
      kept({ type: 'ResourceCreated', data: { id: '1', key: 'secret', name: '', description: '', actions: [], attributes: {} } }),
    ).toBeNull();
    const role = { id: '2', key: 'owner', resource: 'secret', name: '', description: '', permissions: ['read'], attributes: {} };
    expect(kept({ type: 'RoleCreated', data: role })).toBeNull();
    expect(
      kept({
        type: 'RelationCreated',
        data: { id: '3', key: 'parent', name: '', description: '', objectResource: 'doc', subjectResource: 'secret' },
      }),
    ).toBeNull();
    expect(
      kept({ type: 'ResourceInstanceCreated', data: { id: '4', key: 's1', resource: 'secret', tenant: 't', attributes: {} } }),
    ).toBeNull();
    expect(
      kept({
        type: 'RelationshipTupleCreated',
        data: { id: '5', subject: 'secret:s1', relation: 'parent', object: 'doc:d1', tenant: 't' },
      }),
    ).toBeNull();
    const assignment = { id: '6', user: 'u', role: 'owner', resource: 'secret', tenant: 't', resourceInstance: 'secret:s1' };
    expect(kept({ type: 'RoleAssigned', data: assignment })).toBeNull();
  });

  it('a tenant role keeps its permissions on the types copied; derivations naming what is left out go', () => {
    const reader = {
      id: '7',
      key: 'reader',
      resource: null,
      name: '',
      description: '',
      permissions: ['doc:read', 'secret:read'],
      attributes: {},
    };
    expect(kept({ type: 'RoleCreated', data: reader })?.data).toMatchObject({ permissions: ['doc:read'] });
    const derivations = {
      id: '8',
      key: 'editor',
      resource: 'doc',
      rules: [
        { onResource: 'folder', role: 'editor', relation: 'parent' },
        { onResource: 'secret', role: 'editor', relation: 'parent' },
        { onResource: 'folder', role: 'admin', relation: 'parent' },
      ],
    };
    expect(kept({ type: 'RoleDerivationsReplaced', data: derivations })?.data).toMatchObject({
      rules: [{ onResource: 'folder', role: 'editor', relation: 'parent' }],
    });
    expect(
      kept({
        type: 'ImplicitGrantAdded',
        data: { id: '8', key: 'editor', resource: 'doc', rule: { onResource: 'folder', role: 'admin', relation: 'parent' } },
      }),
    ).toBeNull();
  });

  it('a role left out takes its assignments; tenants and users always pass; no filters: the event itself', () => {
    expect(
      kept({ type: 'RoleAssigned', data: { id: '9', user: 'u', role: 'admin', resource: null, tenant: 't', resourceInstance: null } }),
    ).toBeNull();
    const tenant: EnvEvent = { type: 'TenantCreated', data: { id: '10', key: 't', name: '', description: '', attributes: {} } };
    expect(kept(tenant)).toEqual(tenant);
    expect(scopedEvent(tenant, { facts: true })).toBe(tenant);
  });
});
