import { DuplicateEntityError, InvalidRequestError, NotFoundError } from '../../errors';
import type { EnvEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import type { BulkItemCommand } from './commands';
import { envDecider } from './decider';
import { OverlayMap } from './scratch';

const spec = deciderSpecification(envDecider);
const attrs = {};
const action = (key: string) => ({ id: `a-${key}`, key, name: key, description: '' });

const schema: EnvEvent[] = [
  {
    type: 'ResourceCreated',
    data: { id: 'r-folder', key: 'folder', name: 'Folder', description: '', actions: [action('read')], attributes: attrs },
  },
  {
    type: 'ResourceCreated',
    data: { id: 'r-file', key: 'file', name: 'File', description: '', actions: [action('read')], attributes: attrs },
  },
  {
    type: 'RoleCreated',
    data: { id: 'ro-fv', key: 'viewer', resource: 'folder', name: 'Viewer', description: '', permissions: ['read'], attributes: attrs },
  },
  {
    type: 'RelationCreated',
    data: { id: 'rel-parent', key: 'parent', name: 'Parent', description: '', objectResource: 'file', subjectResource: 'folder' },
  },
  { type: 'TenantCreated', data: { id: 't-acme', key: 'acme', name: 'acme', description: '', attributes: attrs } },
];
const createInstance = (resource: string, key: string): BulkItemCommand => ({
  type: 'CreateInstance',
  id: `i-${resource}-${key}`,
  key,
  resource,
  tenant: 'acme',
  attributes: attrs,
});
const instanceCreated = (resource: string, key: string): EnvEvent => ({
  type: 'ResourceInstanceCreated',
  data: { id: `i-${resource}-${key}`, key, resource, tenant: 'acme', attributes: attrs },
});
const createTuple = (id: string, subject: string, object: string): BulkItemCommand => ({
  type: 'CreateTuple',
  id,
  subject,
  relation: 'parent',
  object,
  tenant: null,
});
const tupleCreated = (id: string, subject: string, object: string): EnvEvent => ({
  type: 'RelationshipTupleCreated',
  data: { id, subject, relation: 'parent', object, tenant: 'acme' },
});
const assign = (id: string, user: string): BulkItemCommand => ({
  type: 'AssignRole',
  id,
  newUserId: `u-${user}`,
  user,
  role: 'viewer',
  tenant: null,
  resourceInstance: 'folder:f1',
});

describe('environment decider: bulk', () => {
  it('decides each item against the state the items before it leave', () => {
    spec
      .given(schema)
      .when({
        type: 'Bulk',
        commands: [
          createInstance('folder', 'f1'),
          createInstance('file', 'd1'),
          createTuple('t1', 'folder:f1', 'file:d1'),
          assign('as1', 'bob'),
        ],
      })
      .then([
        instanceCreated('folder', 'f1'),
        instanceCreated('file', 'd1'),
        tupleCreated('t1', 'folder:f1', 'file:d1'),
        { type: 'UserCreated', data: { id: 'u-bob', key: 'bob', email: null, firstName: null, lastName: null, attributes: {} } },
        {
          type: 'RoleAssigned',
          data: { id: 'as1', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
        },
      ]);
  });

  it('creates a new user once even when several items assign it', () => {
    spec
      .given([...schema, instanceCreated('folder', 'f1'), instanceCreated('folder', 'f2')])
      .when({
        type: 'Bulk',
        commands: [
          assign('as1', 'bob'),
          { type: 'AssignRole', id: 'as2', newUserId: 'u-bob-2', user: 'bob', role: 'viewer', tenant: null, resourceInstance: 'folder:f2' },
        ],
      })
      .then([
        { type: 'UserCreated', data: { id: 'u-bob', key: 'bob', email: null, firstName: null, lastName: null, attributes: {} } },
        {
          type: 'RoleAssigned',
          data: { id: 'as1', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
        },
        {
          type: 'RoleAssigned',
          data: { id: 'as2', user: 'bob', role: 'viewer', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f2' },
        },
      ]);
  });

  it('refuses a duplicate inside the bulk, naming the item', () => {
    spec
      .given([...schema, instanceCreated('folder', 'f1'), instanceCreated('file', 'd1')])
      .when({ type: 'Bulk', commands: [createTuple('t1', 'folder:f1', 'file:d1'), createTuple('t2', 'folder:f1', 'file:d1')] })
      .thenThrows(DuplicateEntityError, /^Item 1: Relationship tuple 'folder:f1\|parent\|file:d1' already exists/);
  });

  it('refuses the whole bulk with the error type of the first refused item', () => {
    spec
      .given([...schema, instanceCreated('folder', 'f1'), instanceCreated('file', 'd1')])
      .when({
        type: 'Bulk',
        commands: [
          createTuple('t1', 'folder:f1', 'file:d1'),
          createTuple('t2', 'folder:nope', 'file:d1'),
          createTuple('t3', 'x', 'file:d1'),
        ],
      })
      .thenThrows(NotFoundError, /^Item 1: Resource instance 'folder:nope' not found/);
    spec
      .given([...schema, instanceCreated('folder', 'f1')])
      .when({ type: 'Bulk', commands: [createTuple('t1', 'nocolon', 'folder:f1')] })
      .thenThrows(InvalidRequestError, /^Item 0: The subject 'nocolon' must have the form/);
  });

  it('refuses to create an instance implicitly under a key the create route would refuse', () => {
    const implicit = (subject: string): BulkItemCommand => ({
      type: 'CreateTuple',
      id: 't1',
      subject,
      relation: 'parent',
      object: 'file:d1',
      tenant: null,
      newSubjectId: 'i-new',
    });
    spec
      .given([...schema, instanceCreated('file', 'd1')])
      .when({ type: 'Bulk', commands: [implicit('folder:f1*')] })
      .thenThrows(InvalidRequestError, /^Item 0: Resource instance key 'f1\*' in 'folder:f1\*' must be/);
    spec
      .given([...schema, instanceCreated('file', 'd1')])
      .when({ type: 'Bulk', commands: [implicit(`folder:${'k'.repeat(257)}`)] })
      .thenThrows(InvalidRequestError, /must be 1 to 256 letters/);
    // The same rule lets a valid key through: the instance is created with the tuple.
    spec
      .given([...schema, instanceCreated('file', 'd1')])
      .when({ type: 'Bulk', commands: [implicit('folder:f-1_A')] })
      .then([
        { type: 'ResourceInstanceCreated', data: { id: 'i-new', key: 'f-1_A', resource: 'folder', tenant: 'acme', attributes: attrs } },
        tupleCreated('t1', 'folder:f-1_A', 'file:d1'),
      ]);
  });

  it('deletes what items before it created, and refuses deleting what is not there', () => {
    spec
      .given([...schema, instanceCreated('folder', 'f1'), instanceCreated('file', 'd1')])
      .when({
        type: 'Bulk',
        commands: [
          createTuple('t1', 'folder:f1', 'file:d1'),
          { type: 'DeleteTuple', subject: 'folder:f1', relation: 'parent', object: 'file:d1' },
        ],
      })
      .then([
        tupleCreated('t1', 'folder:f1', 'file:d1'),
        { type: 'RelationshipTupleDeleted', data: tupleCreated('t1', 'folder:f1', 'file:d1').data as never },
      ]);
    spec
      .given([...schema, instanceCreated('folder', 'f1'), instanceCreated('file', 'd1')])
      .when({ type: 'Bulk', commands: [{ type: 'DeleteTuple', subject: 'folder:f1', relation: 'parent', object: 'file:d1' }] })
      .thenThrows(NotFoundError, /^Item 0: .*not found/);
  });

  it('cascades an instance deletion over tuples created earlier in the bulk', () => {
    spec
      .given([...schema, instanceCreated('folder', 'f1')])
      .when({
        type: 'Bulk',
        commands: [
          createInstance('file', 'd1'),
          createTuple('t1', 'folder:f1', 'file:d1'),
          { type: 'DeleteInstance', instance: 'file:d1' },
        ],
      })
      .then([
        instanceCreated('file', 'd1'),
        tupleCreated('t1', 'folder:f1', 'file:d1'),
        { type: 'RelationshipTupleDeleted', data: tupleCreated('t1', 'folder:f1', 'file:d1').data as never },
        { type: 'ResourceInstanceDeleted', data: { id: 'i-file-d1', key: 'd1', resource: 'file', tenant: 'acme' } },
      ]);
  });

  it('leaves the given state untouched, whether the bulk is accepted or refused', () => {
    const state = [...schema, instanceCreated('folder', 'f1')].reduce((s, e) => envDecider.evolve(s, e), envDecider.initialState());
    const before = { instances: [...state.instances.keys()], tuples: state.tuples.size, users: state.users.size, ids: state.ids.size };
    const accepted = envDecider.decide(
      { type: 'Bulk', commands: [createInstance('file', 'd1'), createTuple('t1', 'folder:f1', 'file:d1'), assign('as1', 'bob')] },
      state,
    );
    expect(accepted.map((e) => e.type)).toEqual(['ResourceInstanceCreated', 'RelationshipTupleCreated', 'UserCreated', 'RoleAssigned']);
    expect(() =>
      envDecider.decide({ type: 'Bulk', commands: [createInstance('file', 'd2'), createInstance('file', 'd2')] }, state),
    ).toThrow(DuplicateEntityError);
    expect({ instances: [...state.instances.keys()], tuples: state.tuples.size, users: state.users.size, ids: state.ids.size }).toEqual(
      before,
    );
    // What the pipeline then folds in gives the state the bulk saw at its end.
    for (const event of accepted) envDecider.evolve(state, event);
    expect([...state.instances.keys()]).toEqual(['folder:f1', 'file:d1']);
    expect(state.tuples.has('folder:f1|parent|file:d1')).toBe(true);
    expect(state.users.has('bob')).toBe(true);
  });

  it('creates and deletes tenants and users (with their assignments) in order, leaving the given state untouched', () => {
    const state = [...schema, instanceCreated('folder', 'f1')].reduce((s, e) => envDecider.evolve(s, e), envDecider.initialState());
    const before = {
      tenants: [...state.tenants.keys()],
      users: state.users.size,
      ids: state.ids.size,
      assignments: state.assignments.size,
    };
    const user = (key: string, roles: Array<{ id: string; tenant: string }>): BulkItemCommand => ({
      type: 'CreateUser',
      id: `u-${key}`,
      key,
      email: null,
      firstName: null,
      lastName: null,
      attributes: attrs,
      roleAssignments: roles.map((r) => ({
        id: r.id,
        newInstanceId: `i-${r.id}`,
        role: 'viewer',
        tenant: r.tenant,
        resourceInstance: 'folder:f1',
      })),
    });
    const accepted = envDecider.decide(
      {
        type: 'Bulk',
        commands: [
          { type: 'CreateTenant', id: 't-new', key: 'newco', name: 'New', description: '', attributes: attrs },
          user('ann', [{ id: 'as1', tenant: 'acme' }]),
          { type: 'DeleteUser', user: 'ann' },
          { type: 'DeleteTenant', tenant: 'newco' },
        ],
      },
      state,
    );
    expect(accepted.map((e) => e.type)).toEqual([
      'TenantCreated',
      'UserCreated',
      'RoleAssigned',
      'RoleUnassigned',
      'UserDeleted',
      'TenantDeleted',
    ]);
    expect(() =>
      envDecider.decide(
        {
          type: 'Bulk',
          commands: [
            { type: 'CreateTenant', id: 't-x', key: 'x', name: 'X', description: '', attributes: attrs },
            user('bo', [{ id: 'as2', tenant: 'x' }]),
          ],
        },
        state,
      ),
    ).toThrow(InvalidRequestError);
    expect({
      tenants: [...state.tenants.keys()],
      users: state.users.size,
      ids: state.ids.size,
      assignments: state.assignments.size,
    }).toEqual(before);
  });

  it('an empty bulk decides nothing', () => {
    spec.given(schema).when({ type: 'Bulk', commands: [] }).then([]);
  });
});

describe('OverlayMap', () => {
  it('reads through to the base, keeps its own writes and deletes, and never changes the base', () => {
    const base = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const overlay = new OverlayMap(base);
    overlay.set('b', 20).set('d', 4);
    expect(overlay.delete('a')).toBe(true);
    expect(overlay.delete('a')).toBe(false);
    expect(overlay.delete('zz')).toBe(false);
    expect(overlay.get('a')).toBeUndefined();
    expect(overlay.has('a')).toBe(false);
    expect(overlay.get('b')).toBe(20);
    expect(overlay.get('c')).toBe(3);
    expect(overlay.size).toBe(3);
    expect([...overlay]).toEqual([
      ['c', 3],
      ['b', 20],
      ['d', 4],
    ]);
    expect([...overlay.values()]).toEqual([3, 20, 4]);
    overlay.set('a', 10);
    expect(overlay.size).toBe(4);
    overlay.clear();
    expect(overlay.size).toBe(0);
    expect([...overlay.keys()]).toEqual([]);
    expect(base).toEqual(
      new Map([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ]),
    );
  });

  it('refuses undefined values (one lookup tells a touched key from an untouched one)', () => {
    const overlay = new OverlayMap(new Map<string, number | undefined>([['a', 1]]));
    expect(() => overlay.set('a', undefined)).toThrow(TypeError);
    expect(overlay.get('a')).toBe(1);
  });
});
