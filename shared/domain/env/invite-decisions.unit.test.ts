import { InvalidRequestError, NotFoundError } from '../../errors';
import type { EnvEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import { envDecider } from './decider';
import { canonicalId } from '../../ids';

const spec = deciderSpecification(envDecider);
const attributes = {};

const given: EnvEvent[] = [
  { type: 'ResourceCreated', data: { id: 'r-doc', key: 'doc', name: 'Doc', description: null, actions: [], attributes } },
  {
    type: 'RoleCreated',
    data: {
      id: '0190a0b0-0000-7000-8000-00000000000e',
      key: 'editor',
      resource: null,
      name: 'E',
      description: null,
      permissions: [],
      attributes,
    },
  },
  {
    type: 'RoleCreated',
    data: { id: 'ro-viewer', key: 'viewer', resource: 'doc', name: 'V', description: null, permissions: [], attributes },
  },
  { type: 'TenantCreated', data: { id: 't-acme', key: 'acme', name: 'Acme', description: null, attributes } },
  { type: 'ResourceInstanceCreated', data: { id: 'i-d1', key: 'd1', resource: 'doc', tenant: 'acme', attributes } },
];
const definition = {
  id: 'inv-1',
  key: 'ada@example.com',
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'L',
  role: 'editor',
  roleResource: null,
  tenant: 'acme',
  resourceInstance: null,
};
const created: EnvEvent = { type: 'UserInviteCreated', data: definition };
const approve = { type: 'ApproveUserInvite' as const, invite: 'inv-1', user: 'ada', email: 'ADA@example.com', attributes: { a: 1 } };
const ids = { newUserId: 'u-ada', assignmentId: 'as-1' };

describe('environment decider: user invites', () => {
  it('creates a pending invite, naming its role and tenant by key (a role id in either UUID spelling)', () => {
    spec
      .given(given)
      .when({
        type: 'CreateUserInvite',
        id: 'inv-1',
        key: 'ada@example.com',
        email: 'ada@example.com',
        firstName: 'Ada',
        lastName: 'L',
        status: 'pending',
        role: '0190A0B000007000800000000000000E',
        tenant: 't-acme',
        resourceInstance: null,
      })
      .then([created]);
  });

  it('refuses a resource role without an instance, and an approved status', () => {
    const command = {
      type: 'CreateUserInvite' as const,
      id: 'inv-2',
      key: 'bo',
      email: 'bo@example.com',
      firstName: null,
      lastName: null,
      status: 'pending' as const,
      role: 'ro-viewer',
      tenant: 'acme',
      resourceInstance: null,
    };
    spec
      .given(given)
      .when(command)
      .thenThrows(InvalidRequestError, /resource_instance_id/);
    spec
      .given(given)
      .when({ ...command, role: 'editor', status: 'approved' })
      .thenThrows(InvalidRequestError, /approve/);
    spec
      .given(given)
      .when({ ...command, role: 'viewer' })
      .thenThrows(NotFoundError, /viewer/);
  });

  it('approving makes the user, gives it the role, then marks the invite', () => {
    spec
      .given([...given, created])
      .when({ ...approve, ...ids })
      .then([
        {
          type: 'UserCreated',
          data: { id: 'u-ada', key: 'ada', email: 'ADA@example.com', firstName: 'Ada', lastName: 'L', attributes: { a: 1 } },
        },
        { type: 'RoleAssigned', data: { id: 'as-1', user: 'ada', role: 'editor', resource: null, tenant: 'acme', resourceInstance: null } },
        { type: 'UserInviteApproved', data: { id: 'inv-1', key: 'ada@example.com', user: 'ada' } },
      ]);
  });

  it('approving for an existing user holding the role updates it and assigns nothing', () => {
    const user: EnvEvent = {
      type: 'UserCreated',
      data: { id: 'u-old', key: 'ada', email: null, firstName: null, lastName: null, attributes },
    };
    const held: EnvEvent = {
      type: 'RoleAssigned',
      data: { id: 'as-0', user: 'ada', role: 'editor', resource: null, tenant: 'acme', resourceInstance: null },
    };
    spec
      .given([...given, created, user, held])
      .when({ ...approve, ...ids })
      .then([
        {
          type: 'UserUpdated',
          data: { id: 'u-old', key: 'ada', email: 'ADA@example.com', firstName: 'Ada', lastName: 'L', attributes: { a: 1 } },
        },
        { type: 'UserInviteApproved', data: { id: 'inv-1', key: 'ada@example.com', user: 'ada' } },
      ]);
  });

  it('approves once, for the invited e-mail only', () => {
    spec
      .given([...given, created])
      .when({ ...approve, ...ids, email: 'eve@example.com' })
      .thenThrows(InvalidRequestError, /eve@example.com/);
    spec
      .given([...given, created, { type: 'UserInviteApproved', data: { id: 'inv-1', key: 'ada@example.com', user: 'ada' } }])
      .when({ ...approve, ...ids })
      .thenThrows(InvalidRequestError, /approved already/);
  });

  it('a bulk delete of the tenant deletes the invite first, and leaves the state it was decided on as it was', () => {
    const state = [...given, created].reduce((s, e) => envDecider.evolve(s, e), envDecider.initialState());
    const events = envDecider.decide({ type: 'Bulk', commands: [{ type: 'DeleteTenant', tenant: 'acme' }] }, state);
    expect(events[0]).toEqual({ type: 'UserInviteDeleted', data: { id: 'inv-1', key: 'ada@example.com' } });
    expect(events.at(-1)).toMatchObject({ type: 'TenantDeleted' });
    expect(state.invites.byKey.has('ada@example.com')).toBe(true);
  });

  it('reads a UUID in either spelling, and leaves anything else as it is', () => {
    expect(canonicalId('0190A0B000007000800000000000000E')).toBe('0190a0b0-0000-7000-8000-00000000000e');
    expect(canonicalId('0190A0B0-0000-7000-8000-00000000000E')).toBe('0190a0b0-0000-7000-8000-00000000000e');
    expect(canonicalId('acme')).toBe('acme');
  });
});
