import type { DerivationRule, EnvEvent, EventHandlers } from '../../shared/events';
import { dispatch, eventTypes, handledTypes } from '../../shared/events';
import { attributeDefsOf } from '../../shared/domain/env/attributes';
import type { DerivedRoleRuleDoc, ReadModels, ResourceDoc, RoleDoc } from '../../shared/read-models/read-models';
import type { CreatedFields, EnvContext, Projection } from '../../shared/read-models/projection';
import { createdFields, EnvContextCache } from '../../shared/read-models/projection';
import { abacProjectionHandlers } from './abac-projection';
import { proxyConfigProjectionHandlers } from './proxy-config-projection';

/** What a schema handler writes with, for one event of environment `ctx`. */
interface SchemaScope {
  rm: ReadModels;
  ctx: EnvContext;
  at: string;
  /** The fields every document an event creates starts with. */
  common: CreatedFields;
}

/** Resource types, their roles (with derivations), relations, and top-level roles; the facts are the facts projection's. */
export const schemaProjectionHandlers: EventHandlers<EnvEvent, SchemaScope, Promise<void>> = {
  async ResourceCreated({ rm, common }, { data: d }) {
    const actions = Object.fromEntries(d.actions.map((a) => [a.key, { id: a.id, key: a.key, name: a.name, description: a.description }]));
    const attributes = Object.fromEntries(attributeDefsOf(d.id, d.attributes).map((a) => [a.key, a]));
    await rm.resources.put({
      id: d.id,
      key: d.key,
      name: d.name,
      description: d.description,
      urn: d.urn ?? null,
      actions,
      attributes,
      roles: {},
      relations: {},
      action_groups: {},
      _action_groups: {},
      ...common,
    });
  },
  async ResourceUpdated(scope, { data: d }) {
    await updateResource(scope, d.key, (doc) => {
      if (d.name !== undefined) doc.name = d.name;
      if (d.description !== undefined) doc.description = d.description;
      if (d.urn !== undefined) doc.urn = d.urn;
    });
  },
  async ActionCreated(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => {
      doc.actions[d.key] = { id: d.id, key: d.key, name: d.name, description: d.description, created_at: scope.at, updated_at: scope.at };
    });
  },
  async ActionUpdated(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => {
      const action = doc.actions[d.key];
      if (!action) return;
      if (d.name !== undefined) action.name = d.name;
      if (d.description !== undefined) action.description = d.description;
      action.updated_at = scope.at;
    });
  },
  async ActionDeleted(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => void delete doc.actions[d.key]);
  },
  async AttributeCreated(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => {
      doc.attributes[d.key] = {
        id: d.id,
        key: d.key,
        type: d.type,
        description: d.description,
        created_at: scope.at,
        updated_at: scope.at,
      };
    });
  },
  async AttributeUpdated(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => {
      const attribute = doc.attributes[d.key];
      if (!attribute) return;
      if (d.type !== undefined) attribute.type = d.type;
      if (d.description !== undefined) attribute.description = d.description;
      attribute.updated_at = scope.at;
    });
  },
  async AttributeDeleted(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => void delete doc.attributes[d.key]);
  },
  async ActionGroupCreated(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => {
      const { resource: _resource, ...group } = d;
      doc.action_groups[d.key] = [...d.actions];
      (doc._action_groups ??= {})[d.key] = { ...group, actions: [...d.actions], created_at: scope.at, updated_at: scope.at };
    });
  },
  async ActionGroupUpdated(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => {
      const group = doc._action_groups?.[d.key];
      if (!group) return;
      if (d.name !== undefined) group.name = d.name;
      if (d.description !== undefined) group.description = d.description;
      if (d.actions !== undefined) group.actions = [...d.actions];
      group.updated_at = scope.at;
      doc.action_groups[d.key] = [...group.actions];
    });
  },
  async ActionGroupDeleted(scope, { data: d }) {
    await updateResource(scope, d.resource, (doc) => {
      delete doc.action_groups[d.key];
      delete doc._action_groups?.[d.key];
    });
  },
  async ResourceDeleted({ rm }, { data: d }) {
    await rm.resources.delete(d.id);
  },
  async RoleCreated({ rm, ctx, common }, { data: d }) {
    const resource = d.resource === null ? null : await rm.resources.findOne({ environment_id: ctx.environment_id, key: d.resource });
    await roleCollection(rm, d.resource).put({
      id: d.id,
      key: d.key,
      name: d.name,
      description: d.description,
      permissions: d.permissions,
      attributes: d.attributes,
      extends: [],
      granted_to: { id: d.id, users_with_role: [], when: {} },
      ...(d.resource === null ? {} : { resource: d.resource, resource_id: resource?.id ?? '' }),
      ...common,
    });
  },
  async RoleUpdated(scope, { data: d }) {
    await updateRole(scope, d.id, d.resource, (doc) => {
      if (d.name !== null) doc.name = d.name;
      if (d.description !== null) doc.description = d.description;
      doc.permissions = d.permissions;
    });
  },
  async RoleDerivationsReplaced(scope, { data: d }) {
    const owner = d.resource ?? '';
    const rules = await Promise.all(d.rules.map((r) => ruleDoc(scope, owner, r)));
    await updateRole(scope, d.id, d.resource, (doc) => void (doc.granted_to.users_with_role = rules));
  },
  async ImplicitGrantAdded(scope, { data: d }) {
    const rule = await ruleDoc(scope, d.resource ?? '', d.rule);
    await updateRole(scope, d.id, d.resource, (doc) => {
      const rules = doc.granted_to.users_with_role;
      if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
    });
  },
  async ImplicitGrantRemoved(scope, { data: d }) {
    await updateRole(scope, d.id, d.resource, (doc) => {
      doc.granted_to.users_with_role = doc.granted_to.users_with_role.filter(
        (r) => !(r.role === d.rule.role && r.on_resource === d.rule.onResource && r.linked_by_relation === d.rule.relation),
      );
    });
  },
  async RoleExtendsReplaced(scope, { data: d }) {
    await updateRole(scope, d.id, d.resource, (doc) => void (doc.extends = [...d.extends]));
  },
  async RoleDerivationConditionsSet(scope, { data: d }) {
    await updateRole(scope, d.id, d.resource, (doc) => {
      // Permit's DerivedRoleBlockRead.when: present once set, false after it is turned off.
      doc.granted_to.when = { ...doc.granted_to.when, no_direct_roles_on_object: d.noDirectRolesOnObject };
    });
  },
  async RoleDeleted({ rm }, { data: d }) {
    await roleCollection(rm, d.resource).delete(d.id);
  },
  async RelationCreated(scope, { data: d }) {
    const { rm, ctx, common } = scope;
    const [subject, object] = await Promise.all([
      rm.resources.findOne({ environment_id: ctx.environment_id, key: d.subjectResource }),
      rm.resources.findOne({ environment_id: ctx.environment_id, key: d.objectResource }),
    ]);
    await rm.relations.put({
      id: d.id,
      key: d.key,
      name: d.name,
      description: d.description,
      subject_resource: d.subjectResource,
      subject_resource_id: subject?.id ?? '',
      object_resource: d.objectResource,
      object_resource_id: object?.id ?? '',
      ...common,
    });
    await updateResourceRelations(scope, d.objectResource, (relations) => {
      relations[d.key] = { resource_id: subject?.id ?? '', resource: d.subjectResource };
    });
  },
  async RelationDeleted(scope, { data: d }) {
    await scope.rm.relations.delete(d.id);
    await updateResourceRelations(scope, d.objectResource, (relations) => void delete relations[d.key]);
  },
  TenantCreated: 'ignored',
  TenantUpdated: 'ignored',
  TenantDeleted: 'ignored',
  UserCreated: 'ignored',
  UserUpdated: 'ignored',
  UserDeleted: 'ignored',
  ResourceInstanceCreated: 'ignored',
  ResourceInstanceUpdated: 'ignored',
  ResourceInstanceDeleted: 'ignored',
  RoleAssigned: 'ignored',
  RoleUnassigned: 'ignored',
  RelationshipTupleCreated: 'ignored',
  RelationshipTupleDeleted: 'ignored',
  RoleAssignmentExpirySet: 'ignored',
  RoleAssignmentExpired: 'ignored',
  RelationshipTupleExpirySet: 'ignored',
  RelationshipTupleExpired: 'ignored',
  ...abacProjectionHandlers,
  ...proxyConfigProjectionHandlers,
  // User invites are the facts projection's (invites-projection.ts).
  UserInviteCreated: 'ignored',
  UserInviteUpdated: 'ignored',
  UserInviteApproved: 'ignored',
  UserInviteDeleted: 'ignored',
  AssertionSaved: 'ignored',
  AssertionDeleted: 'ignored',
};

/** Resource types, their roles (with derivations), relations, and top-level roles. */
export function schemaProjection(rm: ReadModels): Projection<EnvEvent> {
  const contexts = new EnvContextCache(rm);
  return {
    name: 'schema',
    version: 1,
    handles: handledTypes(eventTypes.env, schemaProjectionHandlers),
    async apply(event) {
      const ctx = await contexts.of(event);
      const at = event.metadata.timestamp;
      await dispatch(schemaProjectionHandlers, event.type, { rm, ctx, at, common: createdFields(ctx, at) }, event);
    },
  };
}

async function ruleDoc({ rm, ctx }: SchemaScope, ownerResource: string, rule: DerivationRule): Promise<DerivedRoleRuleDoc> {
  const [role, resource, relation] = await Promise.all([
    rm.resourceRoles.findOne({ environment_id: ctx.environment_id, resource: rule.onResource, key: rule.role }),
    rm.resources.findOne({ environment_id: ctx.environment_id, key: rule.onResource }),
    rm.relations.findOne({ environment_id: ctx.environment_id, object_resource: ownerResource, key: rule.relation }),
  ]);
  return {
    role_id: role?.id ?? '',
    resource_id: resource?.id ?? '',
    relation_id: relation?.id ?? '',
    role: rule.role,
    on_resource: rule.onResource,
    linked_by_relation: rule.relation,
  };
}

const roleCollection = (rm: ReadModels, resource: string | null) => (resource === null ? rm.roles : rm.resourceRoles);

async function updateRole(
  { rm, at }: SchemaScope,
  id: string,
  resource: string | null,
  change: (doc: RoleDoc) => Promise<void> | void,
): Promise<void> {
  const doc = await roleCollection(rm, resource).get(id);
  if (!doc) return;
  await change(doc);
  doc.updated_at = at;
  await roleCollection(rm, resource).put(doc);
}

async function updateResource({ rm, ctx, at }: SchemaScope, resourceKey: string, change: (doc: ResourceDoc) => void): Promise<void> {
  const resource = await rm.resources.findOne({ environment_id: ctx.environment_id, key: resourceKey });
  if (!resource) return;
  change(resource);
  resource.updated_at = at;
  await rm.resources.put(resource);
}

async function updateResourceRelations(
  { rm, ctx, at }: SchemaScope,
  resourceKey: string,
  change: (doc: RoleDoc['attributes']) => void,
): Promise<void> {
  const resource = await rm.resources.findOne({ environment_id: ctx.environment_id, key: resourceKey });
  if (!resource) return;
  change(resource.relations);
  resource.updated_at = at;
  await rm.resources.put(resource);
}

const sameRule = (a: DerivedRoleRuleDoc, b: DerivedRoleRuleDoc) =>
  a.role === b.role && a.on_resource === b.on_resource && a.linked_by_relation === b.linked_by_relation;
