import type { EnvEvent, RecordedEvent } from '../../shared/events';
import type { ReadModels } from '../read-models';
import type { Projection } from './projection';
import { EnvContextCache } from './projection';

/** Tenants, users, resource instances, role assignments and relationship tuples. */
export function factsProjection(rm: ReadModels): Projection {
  const contexts = new EnvContextCache(rm);

  const idOf = async <T extends { id: string }>(promise: Promise<T | null>) => (await promise)?.id ?? '';

  return {
    name: 'facts',
    handles: new Set([
      'TenantCreated', 'TenantDeleted', 'UserCreated', 'ResourceInstanceCreated', 'ResourceInstanceDeleted',
      'RoleAssigned', 'RoleUnassigned', 'RelationshipTupleCreated', 'RelationshipTupleDeleted',
    ]),
    async apply(event: RecordedEvent) {
      const e = event as unknown as EnvEvent;
      const ctx = await contexts.of(event);
      const env = ctx.environment_id;
      const at = event.metadata.timestamp;
      const common = { ...ctx, created_at: at, updated_at: at };
      const tenantId = (key: string) => idOf(rm.tenants.findOne({ environment_id: env, key }));
      const instanceId = (ref: string) => {
        const [resource = '', key = ''] = splitRef(ref);
        return idOf(rm.instances.findOne({ environment_id: env, resource, key }));
      };
      switch (e.type) {
        case 'TenantCreated': {
          const d = e.data;
          await rm.tenants.put({ id: d.id, key: d.key, name: d.name, description: d.description, attributes: d.attributes, last_action_at: at, ...common });
          break;
        }
        case 'TenantDeleted':
          await rm.tenants.delete(e.data.id);
          break;
        case 'UserCreated': {
          const d = e.data;
          await rm.users.put({
            id: d.id, key: d.key, email: d.email, first_name: d.firstName, last_name: d.lastName, attributes: d.attributes, roles: [], ...common,
          });
          break;
        }
        case 'ResourceInstanceCreated': {
          const d = e.data;
          const resourceId = await idOf(rm.resources.findOne({ environment_id: env, key: d.resource }));
          await rm.instances.put({
            id: d.id, key: d.key, resource: d.resource, resource_id: resourceId, tenant: d.tenant, tenant_id: await tenantId(d.tenant),
            attributes: d.attributes, ...common,
          });
          break;
        }
        case 'ResourceInstanceDeleted':
          await rm.instances.delete(e.data.id);
          break;
        case 'RoleAssigned': {
          const d = e.data;
          const user = await rm.users.findOne({ environment_id: env, key: d.user });
          const role = d.resource === null
            ? await rm.roles.findOne({ environment_id: env, key: d.role })
            : await rm.resourceRoles.findOne({ environment_id: env, resource: d.resource, key: d.role });
          await rm.assignments.put({
            id: d.id, user: d.user, role: d.role, tenant: d.tenant,
            resource_instance: d.resourceInstance, resource_instance_id: d.resourceInstance ? await instanceId(d.resourceInstance) : null,
            user_id: user?.id ?? '', role_id: role?.id ?? '', tenant_id: await tenantId(d.tenant),
            organization_id: ctx.organization_id, project_id: ctx.project_id, environment_id: env, created_at: at, _resource: d.resource,
          });
          if (user && d.resourceInstance === null && !user.roles.some((r) => r.role === d.role && r.tenant === d.tenant)) {
            user.roles.push({ role: d.role, tenant: d.tenant });
            await rm.users.put(user);
          }
          break;
        }
        case 'RoleUnassigned': {
          const d = e.data;
          await rm.assignments.delete(d.id);
          const user = d.resourceInstance === null ? await rm.users.findOne({ environment_id: env, key: d.user }) : null;
          if (user) {
            user.roles = user.roles.filter((r) => !(r.role === d.role && r.tenant === d.tenant));
            await rm.users.put(user);
          }
          break;
        }
        case 'RelationshipTupleCreated': {
          const d = e.data;
          const objectType = splitRef(d.object)[0] ?? '';
          const [subjectId, objectId, relationId, tid] = await Promise.all([
            instanceId(d.subject),
            instanceId(d.object),
            idOf(rm.relations.findOne({ environment_id: env, object_resource: objectType, key: d.relation })),
            tenantId(d.tenant),
          ]);
          await rm.tuples.put({
            id: d.id, subject: d.subject, relation: d.relation, object: d.object, tenant: d.tenant,
            subject_id: subjectId, object_id: objectId, relation_id: relationId, tenant_id: tid, ...common,
          });
          break;
        }
        case 'RelationshipTupleDeleted':
          await rm.tuples.delete(e.data.id);
          break;
      }
    },
  };
}

/** `type:key` → [type, key]; the key may itself contain ':'. */
export function splitRef(ref: string): [string, string] {
  const colon = ref.indexOf(':');
  return colon < 0 ? [ref, ''] : [ref.slice(0, colon), ref.slice(colon + 1)];
}
