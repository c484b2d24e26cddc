import type { DerivationRule, EnvEvent, RecordedEvent } from '../../shared/events';
import type { DerivedRoleRuleDoc, ReadModels, RoleDoc } from '../../shared/read-models/read-models';
import type { EnvContext, Projection } from '../../shared/read-models/projection';
import { EnvContextCache } from '../../shared/read-models/projection';

/** Resource types, their roles (with derivations), relations, and top-level roles. */
export function schemaProjection(rm: ReadModels): Projection {
  const contexts = new EnvContextCache(rm);

  async function ruleDoc(ctx: EnvContext, ownerResource: string, rule: DerivationRule): Promise<DerivedRoleRuleDoc> {
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

  const roleCollection = (resource: string | null) => (resource === null ? rm.roles : rm.resourceRoles);

  async function updateRole(id: string, resource: string | null, at: string, change: (doc: RoleDoc) => Promise<void> | void) {
    const doc = await roleCollection(resource).get(id);
    if (!doc) return;
    await change(doc);
    doc.updated_at = at;
    await roleCollection(resource).put(doc);
  }

  async function updateResourceRelations(
    environmentId: string,
    resourceKey: string,
    at: string,
    change: (doc: RoleDoc['attributes']) => void,
  ) {
    const resource = await rm.resources.findOne({ environment_id: environmentId, key: resourceKey });
    if (!resource) return;
    change(resource.relations);
    resource.updated_at = at;
    await rm.resources.put(resource);
  }

  return {
    name: 'schema',
    handles: new Set([
      'ResourceCreated',
      'ResourceDeleted',
      'RoleCreated',
      'RoleUpdated',
      'RoleDerivationsReplaced',
      'ImplicitGrantAdded',
      'ImplicitGrantRemoved',
      'RoleDeleted',
      'RelationCreated',
      'RelationDeleted',
    ]),
    async apply(event: RecordedEvent) {
      const e = event as unknown as EnvEvent;
      const ctx = await contexts.of(event);
      const at = event.metadata.timestamp;
      const common = { ...ctx, created_at: at, updated_at: at };
      switch (e.type) {
        case 'ResourceCreated': {
          const d = e.data;
          const actions = Object.fromEntries(
            d.actions.map((a) => [a.key, { id: a.id, key: a.key, name: a.name, description: a.description }]),
          );
          await rm.resources.put({
            id: d.id,
            key: d.key,
            name: d.name,
            description: d.description,
            urn: null,
            actions,
            attributes: d.attributes,
            roles: {},
            relations: {},
            action_groups: {},
            ...common,
          });
          break;
        }
        case 'ResourceDeleted':
          await rm.resources.delete(e.data.id);
          break;
        case 'RoleCreated': {
          const d = e.data;
          const resource = d.resource === null ? null : await rm.resources.findOne({ environment_id: ctx.environment_id, key: d.resource });
          await roleCollection(d.resource).put({
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
          break;
        }
        case 'RoleUpdated': {
          const d = e.data;
          await updateRole(d.id, d.resource, at, (doc) => {
            if (d.name !== null) doc.name = d.name;
            if (d.description !== null) doc.description = d.description;
            doc.permissions = d.permissions;
          });
          break;
        }
        case 'RoleDerivationsReplaced': {
          const d = e.data;
          const owner = d.resource ?? '';
          const rules = await Promise.all(d.rules.map((r) => ruleDoc(ctx, owner, r)));
          await updateRole(d.id, d.resource, at, (doc) => void (doc.granted_to.users_with_role = rules));
          break;
        }
        case 'ImplicitGrantAdded': {
          const d = e.data;
          const rule = await ruleDoc(ctx, d.resource ?? '', d.rule);
          await updateRole(d.id, d.resource, at, (doc) => {
            const rules = doc.granted_to.users_with_role;
            if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
          });
          break;
        }
        case 'ImplicitGrantRemoved': {
          const d = e.data;
          await updateRole(d.id, d.resource, at, (doc) => {
            doc.granted_to.users_with_role = doc.granted_to.users_with_role.filter(
              (r) => !(r.role === d.rule.role && r.on_resource === d.rule.onResource && r.linked_by_relation === d.rule.relation),
            );
          });
          break;
        }
        case 'RoleDeleted':
          await roleCollection(e.data.resource).delete(e.data.id);
          break;
        case 'RelationCreated': {
          const d = e.data;
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
          await updateResourceRelations(ctx.environment_id, d.objectResource, at, (relations) => {
            relations[d.key] = { resource_id: subject?.id ?? '', resource: d.subjectResource };
          });
          break;
        }
        case 'RelationDeleted':
          await rm.relations.delete(e.data.id);
          await updateResourceRelations(ctx.environment_id, e.data.objectResource, at, (relations) => void delete relations[e.data.key]);
          break;
      }
    },
  };
}

const sameRule = (a: DerivedRoleRuleDoc, b: DerivedRoleRuleDoc) =>
  a.role === b.role && a.on_resource === b.on_resource && a.linked_by_relation === b.linked_by_relation;
