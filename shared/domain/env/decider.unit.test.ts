import { DuplicateEntityError, InvalidRequestError, NotFoundError } from '../../errors';
import type { EnvEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import { envDecider } from './decider';

const spec = deciderSpecification(envDecider);
const attrs = {};
const action = (key: string) => ({ id: `a-${key}`, key, name: key, description: '' });

const folder: EnvEvent = {
  type: 'ResourceCreated',
  data: { id: 'r-folder', key: 'folder', name: 'Folder', description: '', actions: [action('read'), action('write')], attributes: attrs },
};
const file: EnvEvent = {
  type: 'ResourceCreated',
  data: { id: 'r-file', key: 'file', name: 'File', description: '', actions: [action('read'), action('write')], attributes: attrs },
};
const folderEditor: EnvEvent = {
  type: 'RoleCreated',
  data: {
    id: 'ro-fe',
    key: 'editor',
    resource: 'folder',
    name: 'Editor',
    description: '',
    permissions: ['read', 'write'],
    attributes: attrs,
  },
};
const fileEditor: EnvEvent = {
  type: 'RoleCreated',
  data: { id: 'ro-de', key: 'editor', resource: 'file', name: 'Editor', description: '', permissions: ['write'], attributes: attrs },
};
const parent: EnvEvent = {
  type: 'RelationCreated',
  data: { id: 'rel-parent', key: 'parent', name: 'Parent', description: '', objectResource: 'file', subjectResource: 'folder' },
};
const tenant = (key: string): EnvEvent => ({
  type: 'TenantCreated',
  data: { id: `t-${key}`, key, name: key, description: '', attributes: attrs },
});
const instance = (resource: string, key: string, tenantKey = 'acme'): EnvEvent => ({
  type: 'ResourceInstanceCreated',
  data: { id: `i-${resource}-${key}`, key, resource, tenant: tenantKey, attributes: attrs },
});
const schema = [folder, file, folderEditor, fileEditor, parent];
const rule = { onResource: 'folder', role: 'editor', relation: 'parent' };

describe('environment decider: schema', () => {
  it('creates a resource type', () => {
    spec
      .given([])
      .when({
        type: 'CreateResource',
        id: 'r1',
        key: 'doc',
        name: 'Doc',
        description: '',
        actions: [action('read')],
        urn: null,
        attributes: [],
      })
      .then([
        {
          type: 'ResourceCreated',
          data: { id: 'r1', key: 'doc', name: 'Doc', description: '', urn: null, actions: [action('read')], attributes: attrs },
        },
      ]);
  });

  it('refuses a duplicate resource key', () => {
    spec
      .given([folder])
      .when({ type: 'CreateResource', id: 'r2', key: 'folder', name: 'F', description: '', actions: [], urn: null, attributes: [] })
      .thenThrows(DuplicateEntityError, /folder/);
  });

  it("refuses a role whose permissions are not its resource's actions", () => {
    spec
      .given([folder])
      .when({
        type: 'CreateRole',
        id: 'x',
        resource: 'folder',
        key: 'admin',
        name: 'A',
        description: '',
        permissions: ['delete'],
        attributes: attrs,
      })
      .thenThrows(NotFoundError, /Action 'delete' is not defined on resource 'folder'/);
  });

  it('refuses a role on an unknown resource, naming it', () => {
    spec
      .given([])
      .when({ type: 'CreateRole', id: 'x', resource: 'nope', key: 'admin', name: 'A', description: '', permissions: [], attributes: attrs })
      .thenThrows(NotFoundError, /Resource 'nope' not found/);
  });

  it('refuses a relation whose subject resource does not exist', () => {
    spec
      .given([file])
      .when({
        type: 'CreateRelation',
        id: 'x',
        objectResource: 'file',
        key: 'parent',
        name: 'P',
        description: '',
        subjectResource: 'folder',
      })
      .thenThrows(NotFoundError, /Resource 'folder' not found/);
  });

  it('replaces derivations on update when granted_to is given', () => {
    spec
      .given(schema)
      .when({ type: 'UpdateRole', resource: 'file', role: 'editor', grantedTo: [rule] })
      .then([{ type: 'RoleDerivationsReplaced', data: { id: 'ro-de', key: 'editor', resource: 'file', rules: [rule] } }]);
  });

  it('refuses a derivation through a relation that does not link on_resource to the role resource', () => {
    spec
      .given(schema)
      .when({ type: 'UpdateRole', resource: 'folder', role: 'editor', grantedTo: [rule] })
      .thenThrows(NotFoundError, /Relation 'parent' not found on resource 'folder'/);
  });

  it('refuses a derivation from a role that does not exist on on_resource', () => {
    spec
      .given(schema)
      .when({ type: 'AddImplicitGrant', resource: 'file', role: 'editor', rule: { ...rule, role: 'owner' } })
      .thenThrows(NotFoundError, /Role 'owner' not found on resource 'folder'/);
  });

  it('adds an implicit grant once', () => {
    spec
      .given([...schema, { type: 'ImplicitGrantAdded', data: { id: 'ro-de', key: 'editor', resource: 'file', rule } }])
      .when({ type: 'AddImplicitGrant', resource: 'file', role: 'editor', rule })
      .thenThrows(DuplicateEntityError);
  });

  it('deleting a role removes its assignments and the derivations that use it', () => {
    spec
      .given([
        ...schema,
        { type: 'RoleDerivationsReplaced', data: { id: 'ro-de', key: 'editor', resource: 'file', rules: [rule] } },
        tenant('acme'),
        instance('folder', 'f1'),
        {
          type: 'RoleAssigned',
          data: { id: 'as1', user: 'alice', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
        },
      ])
      .when({ type: 'DeleteRole', resource: 'folder', role: 'editor' })
      .then([
        {
          type: 'RoleUnassigned',
          data: { id: 'as1', user: 'alice', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
        },
        { type: 'RoleDerivationsReplaced', data: { id: 'ro-de', key: 'editor', resource: 'file', rules: [] } },
        { type: 'RoleDeleted', data: { id: 'ro-fe', key: 'editor', resource: 'folder' } },
      ]);
  });
});

describe('environment decider: facts', () => {
  const base = [
    ...schema,
    tenant('acme'),
    tenant('globex'),
    instance('folder', 'f1'),
    instance('file', 'd1'),
    instance('file', 'other', 'globex'),
  ];

  it('refuses an instance in an unknown tenant', () => {
    spec
      .given(schema)
      .when({ type: 'CreateInstance', id: 'i', key: 'k', resource: 'folder', tenant: 'nope', attributes: attrs })
      .thenThrows(NotFoundError, /Tenant 'nope' not found/);
  });

  it('creates the user with its first assignment', () => {
    spec
      .given(base)
      .when({ type: 'AssignRole', id: 'as', newUserId: 'u1', user: 'bob', role: 'editor', tenant: null, resourceInstance: 'folder:f1' })
      .then([
        { type: 'UserCreated', data: { id: 'u1', key: 'bob', email: null, firstName: null, lastName: null, attributes: {} } },
        {
          type: 'RoleAssigned',
          data: { id: 'as', user: 'bob', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
        },
      ]);
  });

  it("refuses an assignment of a role that is not defined on the instance's resource", () => {
    spec
      .given(base)
      .when({ type: 'AssignRole', id: 'as', newUserId: 'u1', user: 'bob', role: 'viewer', tenant: null, resourceInstance: 'folder:f1' })
      .thenThrows(NotFoundError, /Role 'viewer' not found on resource 'folder'/);
  });

  it('refuses a duplicate assignment', () => {
    const assigned: EnvEvent = {
      type: 'RoleAssigned',
      data: { id: 'as', user: 'bob', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
    };
    spec
      .given([...base, assigned])
      .when({ type: 'AssignRole', id: 'as2', newUserId: 'u', user: 'bob', role: 'editor', tenant: null, resourceInstance: 'folder:f1' })
      .thenThrows(DuplicateEntityError);
  });

  it('creates a tuple between instances of the same tenant', () => {
    spec
      .given(base)
      .when({ type: 'CreateTuple', id: 't', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: null })
      .then([
        {
          type: 'RelationshipTupleCreated',
          data: { id: 't', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: 'acme' },
        },
      ]);
  });

  it('refuses a tuple across tenants, naming both', () => {
    spec
      .given(base)
      .when({ type: 'CreateTuple', id: 't', subject: 'folder:f1', relation: 'parent', object: 'file:other', tenant: null })
      .thenThrows(InvalidRequestError, /tenant 'acme'.*tenant 'globex'/);
  });

  it('refuses a tuple whose relation is not defined on the object type', () => {
    spec
      .given(base)
      .when({ type: 'CreateTuple', id: 't', subject: 'file:d1', relation: 'parent', object: 'folder:f1', tenant: null })
      .thenThrows(NotFoundError, /Relation 'parent' not found on resource 'folder'/);
  });

  it("refuses a tuple whose subject type is not the relation's subject_resource", () => {
    spec
      .given([...base, instance('file', 'd2')])
      .when({ type: 'CreateTuple', id: 't', subject: 'file:d2', relation: 'parent', object: 'file:d1', tenant: null })
      .thenThrows(InvalidRequestError, /takes subjects of type 'folder', not 'file'/);
  });

  it('refuses a tuple to an unknown instance', () => {
    spec
      .given(base)
      .when({ type: 'CreateTuple', id: 't', subject: 'folder:nope', relation: 'parent', object: 'file:d1', tenant: null })
      .thenThrows(NotFoundError, /Resource instance 'folder:nope' not found/);
  });

  it('deleting an instance deletes its tuples and assignments first', () => {
    const tuple: EnvEvent = {
      type: 'RelationshipTupleCreated',
      data: { id: 't', subject: 'folder:f1', relation: 'parent', object: 'file:d1', tenant: 'acme' },
    };
    const assigned: EnvEvent = {
      type: 'RoleAssigned',
      data: { id: 'as', user: 'bob', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:f1' },
    };
    spec
      .given([...base, tuple, assigned])
      .when({ type: 'DeleteInstance', instance: 'folder:f1' })
      .then([
        { type: 'RelationshipTupleDeleted', data: tuple.data },
        { type: 'RoleUnassigned', data: assigned.data },
        { type: 'ResourceInstanceDeleted', data: { id: 'i-folder-f1', key: 'f1', resource: 'folder', tenant: 'acme' } },
      ]);
  });

  it('a top-level role assignment needs a tenant', () => {
    const member: EnvEvent = {
      type: 'RoleCreated',
      data: { id: 'ro-m', key: 'member', resource: null, name: 'M', description: '', permissions: ['file:read'], attributes: attrs },
    };
    spec
      .given([...base, member])
      .when({ type: 'AssignRole', id: 'as', newUserId: 'u', user: 'bob', role: 'member', tenant: null, resourceInstance: null })
      .thenThrows(InvalidRequestError, /needs a tenant or a resource_instance/);
  });
});

describe('environment decider: users and tenants beyond creation', () => {
  const member: EnvEvent = {
    type: 'RoleCreated',
    data: { id: 'ro-m', key: 'member', resource: null, name: 'Member', description: '', permissions: [], attributes: attrs },
  };
  const user = (key: string): EnvEvent => ({
    type: 'UserCreated',
    data: { id: `u-${key}`, key, email: null, firstName: null, lastName: null, attributes: attrs },
  });
  const assigned = (id: string, userKey: string, target: { tenant: string; resource?: string; instance?: string }): EnvEvent => ({
    type: 'RoleAssigned',
    data: {
      id,
      user: userKey,
      role: target.resource ? 'editor' : 'member',
      resource: target.resource ?? null,
      tenant: target.tenant,
      resourceInstance: target.instance ?? null,
    },
  });
  const given = [...schema, member, tenant('acme'), tenant('globex'), instance('folder', 'docs'), user('ann'), user('ann|x')];
  const unassigned = (event: EnvEvent): EnvEvent => ({ type: 'RoleUnassigned', data: event.data as never });

  it('deletes a user after unassigning each of its roles, and no one else’s', () => {
    const onDocs = assigned('as-1', 'ann', { tenant: 'acme', resource: 'folder', instance: 'folder:docs' });
    const inGlobex = assigned('as-2', 'ann', { tenant: 'globex' });
    const other = assigned('as-3', 'ann|x', { tenant: 'acme' });
    spec
      .given([...given, onDocs, inGlobex, other])
      .when({ type: 'DeleteUser', user: 'u-ann' })
      .then([unassigned(onDocs), unassigned(inGlobex), { type: 'UserDeleted', data: { id: 'u-ann', key: 'ann' } }]);
  });

  it('replaces an existing user’s whole profile (named by id) and assigns only the roles it lacks', () => {
    const inAcme = assigned('as-1', 'ann', { tenant: 'acme' });
    spec
      .given([...given, inAcme])
      .when({
        type: 'ReplaceUser',
        id: 'new',
        key: 'u-ann',
        email: 'a@x.io',
        firstName: null,
        lastName: null,
        attributes: attrs,
        roleAssignments: [
          { id: 'as-9', newInstanceId: 'i-9', role: 'member', tenant: 'acme', resourceInstance: null },
          { id: 'as-10', newInstanceId: 'i-10', role: 'member', tenant: 'globex', resourceInstance: null },
        ],
      })
      .then([
        { type: 'UserUpdated', data: { id: 'u-ann', key: 'ann', email: 'a@x.io', firstName: null, lastName: null, attributes: attrs } },
        assigned('as-10', 'ann', { tenant: 'globex' }),
      ]);
  });

  it('creates a user with its assignments, creating a missing instance in the named tenant; one refused refuses all', () => {
    spec
      .given(given)
      .when({
        type: 'CreateUser',
        id: 'u-bo',
        key: 'bo',
        email: null,
        firstName: null,
        lastName: null,
        attributes: attrs,
        roleAssignments: [{ id: 'as-1', newInstanceId: 'i-new', role: 'editor', tenant: 'globex', resourceInstance: 'folder:new' }],
      })
      .then([
        { type: 'UserCreated', data: { id: 'u-bo', key: 'bo', email: null, firstName: null, lastName: null, attributes: attrs } },
        { type: 'ResourceInstanceCreated', data: { id: 'i-new', key: 'new', resource: 'folder', tenant: 'globex', attributes: {} } },
        assigned('as-1', 'bo', { tenant: 'globex', resource: 'folder', instance: 'folder:new' }),
      ]);
    spec
      .given(given)
      .when({
        type: 'CreateUser',
        id: 'u-bo',
        key: 'bo',
        email: null,
        firstName: null,
        lastName: null,
        attributes: attrs,
        roleAssignments: [{ id: 'as-1', newInstanceId: 'i-new', role: 'editor', tenant: null, resourceInstance: 'folder:new' }],
      })
      .thenThrows(NotFoundError, /folder:new/);
  });

  it('removes a user from a tenant: its roles there only; none there is not found', () => {
    const onDocs = assigned('as-1', 'ann', { tenant: 'acme', resource: 'folder', instance: 'folder:docs' });
    const inGlobex = assigned('as-2', 'ann', { tenant: 'globex' });
    spec
      .given([...given, onDocs, inGlobex])
      .when({ type: 'RemoveTenantUser', tenant: 'acme', user: 'ann' })
      .then([unassigned(onDocs)]);
    spec
      .given([...given, inGlobex])
      .when({ type: 'RemoveTenantUser', tenant: 'acme', user: 'ann' })
      .thenThrows(NotFoundError, /no role in tenant 'acme'/);
  });

  it('updates only the fields given', () => {
    spec
      .given(given)
      .when({ type: 'UpdateTenant', tenant: 't-acme', description: 'Acme Inc.' })
      .then([{ type: 'TenantUpdated', data: { id: 't-acme', key: 'acme', description: 'Acme Inc.' } }]);
    spec
      .given(given)
      .when({ type: 'UpdateUser', user: 'ann', email: null })
      .then([{ type: 'UserUpdated', data: { id: 'u-ann', key: 'ann', email: null } }]);
    spec
      .given(given)
      .when({ type: 'UpdateUser', user: 'nobody' })
      .thenThrows(NotFoundError, /nobody/);
  });
});
