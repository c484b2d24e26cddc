import { DuplicateEntityError, InvalidRequestError, NotFoundError } from '../../errors';
import type { EnvEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import { envDecider } from './decider';

const spec = deciderSpecification(envDecider);
const action = (key: string) => ({ id: `a-${key}`, key, name: key, description: null });

const doc: EnvEvent = {
  type: 'ResourceCreated',
  data: {
    id: 'r-doc',
    key: 'doc',
    name: 'Doc',
    description: null,
    urn: null,
    actions: [action('read'), action('write')],
    attributes: { private: { id: 'at-private', type: 'bool', description: null } },
  },
};
const editor: EnvEvent = {
  type: 'RoleCreated',
  data: { id: 'ro-ed', key: 'editor', resource: 'doc', name: 'Editor', description: null, permissions: ['read', 'write'], attributes: {} },
};
const admin: EnvEvent = {
  type: 'RoleCreated',
  data: {
    id: 'ro-admin',
    key: 'admin',
    resource: null,
    name: 'Admin',
    description: null,
    permissions: ['doc:write', 'doc:read'],
    attributes: {},
  },
};
const group: EnvEvent = {
  type: 'ActionGroupCreated',
  data: { resource: 'doc', id: 'g-rw', key: 'rw', name: 'RW', description: null, actions: ['read', 'write'] },
};

describe('environment decider: resource parts', () => {
  it('deleting an action takes it from the roles that grant it and the groups that hold it, before the action goes', () => {
    spec
      .given([doc, editor, admin, group])
      .when({ type: 'DeleteAction', resource: 'doc', action: 'a-write' })
      .then([
        {
          type: 'RoleUpdated',
          data: { id: 'ro-ed', key: 'editor', resource: 'doc', name: null, description: null, permissions: ['read'] },
        },
        {
          type: 'RoleUpdated',
          data: { id: 'ro-admin', key: 'admin', resource: null, name: null, description: null, permissions: ['doc:read'] },
        },
        { type: 'ActionGroupUpdated', data: { resource: 'doc', id: 'g-rw', key: 'rw', actions: ['read'] } },
        { type: 'ActionDeleted', data: { resource: 'doc', id: 'a-write', key: 'write' } },
      ]);
  });

  it('replacing a resource deletes the actions and attributes it does not list, with the cascade', () => {
    spec
      .given([doc, editor])
      .when({
        type: 'UpdateResource',
        resource: 'doc',
        replace: true,
        name: 'Document',
        actions: [{ id: 'new', key: 'read', name: 'Read', description: null }],
      })
      .then([
        { type: 'ResourceUpdated', data: { id: 'r-doc', key: 'doc', name: 'Document', description: null, urn: null } },
        { type: 'ActionUpdated', data: { resource: 'doc', id: 'a-read', key: 'read', name: 'Read', description: null } },
        { type: 'AttributeDeleted', data: { resource: 'doc', id: 'at-private', key: 'private' } },
        {
          type: 'RoleUpdated',
          data: { id: 'ro-ed', key: 'editor', resource: 'doc', name: null, description: null, permissions: ['read'] },
        },
        { type: 'ActionDeleted', data: { resource: 'doc', id: 'a-write', key: 'write' } },
      ]);
  });

  it('a PATCH changes only what it names and creates the actions it does not know', () => {
    spec
      .given([doc])
      .when({
        type: 'UpdateResource',
        resource: 'doc',
        replace: false,
        urn: 'urn:doc',
        actions: [{ id: 'a-del', key: 'delete', name: 'Delete', description: 'd' }],
      })
      .then([
        { type: 'ResourceUpdated', data: { id: 'r-doc', key: 'doc', urn: 'urn:doc' } },
        { type: 'ActionCreated', data: { resource: 'doc', id: 'a-del', key: 'delete', name: 'Delete', description: 'd' } },
      ]);
  });

  it('creates roles and relations given inline in the same decision, or nothing', () => {
    const create = {
      type: 'CreateResource' as const,
      id: 'r-file',
      key: 'file',
      name: 'File',
      description: null,
      urn: 'urn:file',
      actions: [action('read')],
      attributes: [{ id: 'at-size', key: 'size', type: 'number' as const, description: null }],
      roles: [{ id: 'ro-v', key: 'viewer', name: 'Viewer', description: null, permissions: ['read'], attributes: {} }],
      relations: [{ id: 'rel-p', key: 'parent', name: 'parent', description: null, subjectResource: 'doc' }],
    };
    spec
      .given([doc])
      .when(create)
      .then([
        {
          type: 'ResourceCreated',
          data: {
            id: 'r-file',
            key: 'file',
            name: 'File',
            description: null,
            urn: 'urn:file',
            actions: [action('read')],
            attributes: { size: { id: 'at-size', type: 'number', description: null } },
          },
        },
        {
          type: 'RelationCreated',
          data: { id: 'rel-p', key: 'parent', name: 'parent', description: null, objectResource: 'file', subjectResource: 'doc' },
        },
        {
          type: 'RoleCreated',
          data: { id: 'ro-v', key: 'viewer', resource: 'file', name: 'Viewer', description: null, attributes: {}, permissions: ['read'] },
        },
      ]);
    spec
      .given([doc])
      .when({ ...create, roles: [{ ...create.roles[0]!, permissions: ['write'] }] })
      .thenThrows(NotFoundError, /Action 'write' is not defined on resource 'file'/);
    spec
      .given([])
      .when(create)
      .thenThrows(NotFoundError, /Resource 'doc' not found/);
  });

  it('refuses duplicates and unknown parts', () => {
    spec
      .given([doc])
      .when({ type: 'CreateAction', resource: 'doc', action: action('read') })
      .thenThrows(DuplicateEntityError);
    spec
      .given([doc])
      .when({ type: 'CreateAttribute', resource: 'doc', attribute: { id: 'x', key: 'private', type: 'string', description: null } })
      .thenThrows(DuplicateEntityError);
    spec
      .given([doc])
      .when({ type: 'DeleteAction', resource: 'doc', action: 'nope' })
      .thenThrows(NotFoundError, /Action 'nope'/);
    spec
      .given([doc])
      .when({ type: 'CreateActionGroup', resource: 'doc', id: 'g', key: 'g', name: 'G', description: null, actions: ['fly'] })
      .thenThrows(NotFoundError, /Action 'fly'/);
    spec
      .given([doc])
      .when({ type: 'UpdateResource', resource: 'doc', replace: false, actions: [action('x'), action('x')] })
      .thenThrows(InvalidRequestError, /listed twice/);
  });

  it('names parts by key or id', () => {
    spec
      .given([doc])
      .when({ type: 'UpdateAttribute', resource: 'r-doc', attribute: 'at-private', attributeType: 'string' })
      .then([{ type: 'AttributeUpdated', data: { resource: 'doc', id: 'at-private', key: 'private', type: 'string' } }]);
  });

  it('the first user attribute creates the built-in user resource with its own event; later ones do not', () => {
    const age = { id: 'at-age', key: 'age', type: 'number' as const, description: null };
    const first = envDecider.decide({ type: 'CreateAttribute', resource: '__user', attribute: age }, envDecider.initialState());
    expect(first.map((e) => e.type)).toEqual(['ResourceCreated', 'AttributeCreated']);
    expect(first[0]!.data).toMatchObject({ key: '__user', name: 'User', actions: [], attributes: {} });
    spec
      .given(first)
      .when({ type: 'CreateAttribute', resource: '__user', attribute: { ...age, id: 'at-country', key: 'country' } })
      .then([
        { type: 'AttributeCreated', data: { resource: '__user', id: 'at-country', key: 'country', type: 'number', description: null } },
      ]);
    spec
      .given([])
      .when({ type: 'DeleteAttribute', resource: '__user', attribute: 'age' })
      .thenThrows(NotFoundError, /Attribute 'age'/);
  });
});
