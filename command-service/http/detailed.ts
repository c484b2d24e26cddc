import type { AssignmentDoc, InstanceDoc, ReadModels, TupleDoc } from '../../shared/read-models/read-models';
import { splitRef } from '../../shared/refs';
import { withFields } from '../../shared/objects';

/**
 * Permit's `detailed=true` read shapes: the objects a fact names, embedded.
 * Each page's references are read in one query per kind (not one per item).
 */

const unique = (values: Iterable<string>) => [...new Set(values)];

async function byKey<T extends { key: string }>(
  find: (keys: string[]) => Promise<T[]>,
  keys: Iterable<string>,
  keyOf: (doc: T) => string = (doc) => doc.key,
): Promise<Map<string, T>> {
  const list = unique(keys);
  if (list.length === 0) return new Map();
  return new Map((await find(list)).map((doc) => [keyOf(doc), doc]));
}

/** RoleAssignmentDetailedRead: user, role, tenant and resource_instance as objects. */
export async function detailedAssignments(rm: ReadModels, env: string, page: AssignmentDoc[]) {
  const users = await byKey(
    (keys) => rm.users.find({ environment_id: env, key: { $in: keys } }),
    page.map((a) => a.user),
  );
  const tenants = await byKey(
    (keys) => rm.tenants.find({ environment_id: env, key: { $in: keys } }),
    page.map((a) => a.tenant),
  );
  const topRoles = await byKey(
    (keys) => rm.roles.find({ environment_id: env, key: { $in: keys } }),
    page.filter((a) => a._resource === null).map((a) => a.role),
  );
  const resourceRoles = await byKey(
    (keys) => rm.resourceRoles.find({ environment_id: env, key: { $in: keys } }),
    page.filter((a) => a._resource !== null).map((a) => a.role),
    (role) => `${role.resource ?? ''}#${role.key}`,
  );
  const instances = await instancesByRef(
    rm,
    env,
    page.flatMap((a) => (a.resource_instance ? [a.resource_instance] : [])),
  );
  return page.map((a) => {
    const user = users.get(a.user);
    const role = a._resource === null ? topRoles.get(a.role) : resourceRoles.get(`${a._resource}#${a.role}`);
    const tenant = tenants.get(a.tenant);
    const instance = a.resource_instance ? instances.get(a.resource_instance) : undefined;
    return {
      id: a.id,
      user: {
        id: a.user_id,
        key: a.user,
        email: user?.email ?? null,
        first_name: user?.first_name ?? null,
        last_name: user?.last_name ?? null,
        attributes: user?.attributes ?? {},
      },
      role: { id: a.role_id, key: a.role, name: role?.name ?? a.role, permissions: role?.permissions ?? [] },
      tenant: { id: a.tenant_id, key: a.tenant, name: tenant?.name ?? a.tenant, attributes: tenant?.attributes ?? {} },
      ...(a.resource_instance
        ? {
            resource_instance: {
              id: a.resource_instance_id ?? '',
              key: splitRef(a.resource_instance)[1] ?? '',
              resource: splitRef(a.resource_instance)[0] ?? '',
              attributes: instance?.attributes ?? {},
            },
          }
        : {}),
      organization_id: a.organization_id,
      project_id: a.project_id,
      environment_id: a.environment_id,
      created_at: a.created_at,
      expires_at: a.expires_at ?? null,
    };
  });
}

async function instancesByRef(rm: ReadModels, env: string, refs: string[]): Promise<Map<string, InstanceDoc>> {
  const wanted = new Set(refs);
  if (wanted.size === 0) return new Map();
  const keys = unique(refs.map((ref) => splitRef(ref)[1] ?? ''));
  const found = await rm.instances.find({ environment_id: env, key: { $in: keys } });
  return new Map(found.map((i) => [`${i.resource}:${i.key}`, i] as const).filter(([ref]) => wanted.has(ref)));
}

const instanceBlock = (ref: string, tenant: string, instance: InstanceDoc | undefined) => ({
  key: splitRef(ref)[1] ?? '',
  resource: splitRef(ref)[0] ?? '',
  tenant,
  attributes: instance?.attributes ?? {},
});

/** A tuple with `subject_details`, `relation_details`, `object_details` and `tenant_details`. */
export async function detailedTuples(rm: ReadModels, env: string, page: TupleDoc[]) {
  const instances = await instancesByRef(
    rm,
    env,
    page.flatMap((t) => [t.subject, t.object]),
  );
  const tenants = await byKey(
    (keys) => rm.tenants.find({ environment_id: env, key: { $in: keys } }),
    page.map((t) => t.tenant),
  );
  const relations = await byKey(
    (keys) => rm.relations.find({ environment_id: env, key: { $in: keys } }),
    page.map((t) => t.relation),
    (r) => `${r.object_resource}#${r.key}`,
  );
  return page.map((t) => {
    const relation = relations.get(`${splitRef(t.object)[0] ?? ''}#${t.relation}`);
    const tenant = tenants.get(t.tenant);
    return withFields(t, {
      subject_details: instanceBlock(t.subject, t.tenant, instances.get(t.subject)),
      relation_details: { key: t.relation, name: relation?.name ?? t.relation, description: relation?.description ?? '' },
      object_details: instanceBlock(t.object, t.tenant, instances.get(t.object)),
      tenant_details: {
        key: t.tenant,
        name: tenant?.name ?? t.tenant,
        description: tenant?.description ?? '',
        attributes: tenant?.attributes ?? {},
      },
    });
  });
}

/** An instance with `relationships`: the tuples it is the subject or the object of. */
export async function detailedInstances(rm: ReadModels, env: string, page: InstanceDoc[]) {
  const refs = page.map((i) => `${i.resource}:${i.key}`);
  if (refs.length === 0) return [];
  const [asSubject, asObject] = await Promise.all([
    rm.tuples.find({ environment_id: env, subject: { $in: refs } }),
    rm.tuples.find({ environment_id: env, object: { $in: refs } }),
  ]);
  return page.map((i) => {
    const ref = `${i.resource}:${i.key}`;
    const relationships = [...asSubject.filter((t) => t.subject === ref), ...asObject.filter((t) => t.object === ref)];
    return withFields(i, { relationships });
  });
}
