import { splitRef } from '../../shared/refs';
import type { EnvEvent, RecordedEvent } from '../../shared/events';
import type { ReadModels } from '../../shared/read-models/read-models';
import type { Projection } from '../../shared/read-models/projection';
import { EnvContextCache } from '../../shared/read-models/projection';
import { KeyIds } from './key-ids';

/** Tenants, users, resource instances, role assignments and relationship tuples. */
export function factsProjection(rm: ReadModels): Projection {
  const contexts = new EnvContextCache(rm);
  const keyIds = new KeyIds();

  const idOf = async <T extends { id: string }>(promise: Promise<T | null>) => (await promise)?.id ?? '';

  return {
    name: 'facts',
    handles: new Set([
      'TenantCreated',
      'TenantDeleted',
      'UserCreated',
      'ResourceInstanceCreated',
      'ResourceInstanceDeleted',
      'RoleAssigned',
      'RoleUnassigned',
      'RelationshipTupleCreated',
      'RelationshipTupleDeleted',
      // Only to forget the ids they remove (the schema projection maintains those documents).
      'ResourceDeleted',
      'RoleDeleted',
      'RelationDeleted',
    ]),
    async apply(event: RecordedEvent) {
      const e = event as unknown as EnvEvent;
      keyIds.observe(event.position);
      const ctx = await contexts.of(event);
      const env = ctx.environment_id;
      const at = event.metadata.timestamp;
      const common = { ...ctx, created_at: at, updated_at: at };
      const tenantId = (key: string) => keyIds.of(env, 'tenant', key, () => idOf(rm.tenants.findOne({ environment_id: env, key })));
      const instanceId = (ref: string) =>
        keyIds.of(env, 'instance', ref, () => {
          const [resource = '', key = ''] = splitRef(ref);
          return idOf(rm.instances.findOne({ environment_id: env, resource, key }));
        });
      switch (e.type) {
        case 'ResourceDeleted':
        case 'RoleDeleted':
        case 'RelationDeleted':
          keyIds.clear();
          break;
        case 'TenantCreated': {
          const d = e.data;
          await rm.tenants.put({
            id: d.id,
            key: d.key,
            name: d.name,
            description: d.description,
            attributes: d.attributes,
            last_action_at: at,
            ...common,
          });
          keyIds.set(env, 'tenant', d.key, d.id);
          break;
        }
        case 'TenantDeleted':
          await rm.tenants.delete(e.data.id);
          keyIds.forget(env, 'tenant', e.data.key);
          break;
        case 'UserCreated': {
          const d = e.data;
          await rm.users.put({
            id: d.id,
            key: d.key,
            email: d.email,
            first_name: d.firstName,
            last_name: d.lastName,
            attributes: d.attributes,
            roles: [],
            ...common,
          });
          keyIds.set(env, 'user', d.key, d.id);
          break;
        }
        case 'ResourceInstanceCreated': {
          const d = e.data;
          const resourceId = await keyIds.of(env, 'resource', d.resource, () =>
            idOf(rm.resources.findOne({ environment_id: env, key: d.resource })),
          );
          await rm.instances.put({
            id: d.id,
            key: d.key,
            resource: d.resource,
            resource_id: resourceId,
            tenant: d.tenant,
            tenant_id: await tenantId(d.tenant),
            attributes: d.attributes,
            ...common,
          });
          keyIds.set(env, 'instance', `${d.resource}:${d.key}`, d.id);
          break;
        }
        case 'ResourceInstanceDeleted': {
          const ref = `${e.data.resource}:${e.data.key}`;
          await rm.instances.delete(e.data.id);
          keyIds.forget(env, 'instance', ref);
          // The log deletes an instance's tuples before it; any left (an older log) go with it, so nothing (the grants traversal included) follows them.
          await rm.tuples.deleteMany({ environment_id: env, subject: ref });
          await rm.tuples.deleteMany({ environment_id: env, object: ref });
          break;
        }
        case 'RoleAssigned': {
          const d = e.data;
          // A tenant-level role is also listed on the user document, which then needs reading whole.
          const user = d.resourceInstance === null ? await rm.users.findOne({ environment_id: env, key: d.user }) : null;
          const userId = user
            ? user.id
            : await keyIds.of(env, 'user', d.user, () => idOf(rm.users.findOne({ environment_id: env, key: d.user })));
          const roleId =
            d.resource === null
              ? await keyIds.of(env, 'role', d.role, () => idOf(rm.roles.findOne({ environment_id: env, key: d.role })))
              : await keyIds.of(env, 'resource-role', `${d.resource}#${d.role}`, () =>
                  idOf(rm.resourceRoles.findOne({ environment_id: env, resource: d.resource, key: d.role })),
                );
          await rm.assignments.put({
            id: d.id,
            user: d.user,
            role: d.role,
            tenant: d.tenant,
            resource_instance: d.resourceInstance,
            resource_instance_id: d.resourceInstance ? await instanceId(d.resourceInstance) : null,
            user_id: userId,
            role_id: roleId,
            tenant_id: await tenantId(d.tenant),
            organization_id: ctx.organization_id,
            project_id: ctx.project_id,
            environment_id: env,
            created_at: at,
            _resource: d.resource,
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
            keyIds.of(env, 'relation', `${objectType}#${d.relation}`, () =>
              idOf(rm.relations.findOne({ environment_id: env, object_resource: objectType, key: d.relation })),
            ),
            tenantId(d.tenant),
          ]);
          await rm.tuples.put({
            id: d.id,
            subject: d.subject,
            relation: d.relation,
            object: d.object,
            tenant: d.tenant,
            subject_id: subjectId,
            object_id: objectId,
            relation_id: relationId,
            tenant_id: tid,
            ...common,
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
