import { z } from 'zod';
import { GROUP_MEMBER_ROLE, GROUP_TYPE, groupRef, groupRelationKey } from '../../shared/domain/env/group-decisions';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { InstanceDoc, ReadModels } from '../../shared/read-models/read-models';
import { envOf } from '../http/auth';
import { executeEnvCommand } from '../http/services';
import { keySchema, paginationSchema } from '../http/validation';
import { route } from './route';
import type { RouteContext } from './route-context';

/** An optional member: an explicit null is the same as leaving it out. */
const ref = z.string().min(1);

/** `group_resource_type_key`: Permit's default `group`, or `__group`, both naming the built-in group type. */
const groupType = z.enum(['group', GROUP_TYPE]);

const groupCreateSchema = z.object({
  group_instance_key: keySchema,
  group_tenant: ref,
  group_resource_type_key: groupType.optional(),
});
const groupAddRoleSchema = z.object({ role: ref, resource: ref, resource_instance: ref, tenant: ref });
/** Optional as a whole: without a body, the group's tenant. */
const groupAssignUserSchema = z.object({ tenant: ref.optional() }).optional();

const id = z.uuid();
/** Permit's GroupRead. */
const groupSchema = z
  .strictObject({
    id,
    group_instance_key: z.string(),
    group_tenant: z.string(),
    group_resource_type_key: z.literal('group'),
    assigned_roles: z.array(z.string()).describe('`<resource>:<instance>#<role>`, one per role assigned to the group'),
    users: z.array(id).describe("The members' user ids"),
  })
  .meta({ id: 'Group' });
const page = <T extends z.ZodType>(item: T, name: string) =>
  z.strictObject({ data: z.array(item), total_count: z.number().int().min(0), page_count: z.number().int().min(0) }).meta({ id: name });
const groupRoleSchema = z
  .strictObject({
    key: z.string(),
    resource: z.strictObject({ id, key: z.string() }),
    resource_instance: z.strictObject({ id, key: z.string() }),
    tenant: z.string(),
  })
  .meta({ id: 'GroupRole' });
const groupUserSchema = z.strictObject({ id, key: z.string() }).meta({ id: 'GroupUser' });

const pageOf = <T>(items: T[], p: { page: number; per_page: number }) => ({
  data: items.slice((p.page - 1) * p.per_page, p.page * p.per_page),
  total_count: items.length,
  page_count: Math.ceil(items.length / p.per_page),
});

/**
 * `/groups` (Permit's Groups API): a group is an instance of the built-in
 * `__group` resource type, its members hold `member` on it, and a role
 * assigned to it on an instance is a tuple from it with a derivation that
 * gives the role to its members (shared/domain/env/group-decisions.ts).
 * Served: create, list, get, delete, members (add, remove, list), roles
 * (assign, remove, list); not served: groups in groups, the `direct` reads.
 */
export function groupRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  async function findGroup(reads: ReadModels, env: string, key: string): Promise<InstanceDoc> {
    const bare = key.startsWith(`${GROUP_TYPE}:`) ? key.slice(GROUP_TYPE.length + 1) : key;
    const doc =
      (await reads.instances.findOne({ environment_id: env, resource: GROUP_TYPE, key: bare })) ??
      (await reads.byKeyOrId(reads.instances, env, key));
    if (!doc || doc.resource !== GROUP_TYPE) throw new NotFoundError(`Group '${key}' not found`);
    return doc;
  }

  async function rolesOf(reads: ReadModels, env: string, group: InstanceDoc) {
    const tuples = await reads.tuples.find({ environment_id: env, subject: groupRef(group.key) });
    const prefix = groupRelationKey('');
    return tuples
      .filter((t) => t.relation.startsWith(prefix))
      .map((t) => {
        const [resource = '', instance = ''] = t.object.split(':');
        return {
          key: t.relation.slice(prefix.length),
          resource: { id: '', key: resource },
          resource_instance: { id: t.object_id, key: instance },
          tenant: t.tenant,
        };
      });
  }

  async function read(reads: ReadModels, env: string, group: InstanceDoc) {
    const roles = await rolesOf(reads, env, group);
    const members = await reads.assignments.find({ environment_id: env, resource_instance: groupRef(group.key), role: GROUP_MEMBER_ROLE });
    return {
      id: group.id,
      group_instance_key: group.key,
      group_tenant: group.tenant,
      group_resource_type_key: 'group' as const,
      assigned_roles: roles.map((r) => `${r.resource.key}:${r.resource_instance.key}#${r.key}`),
      users: members.map((m) => m.user_id),
    };
  }

  route(
    context,
    {
      method: 'post',
      path: '/groups',
      summary: 'Create a group: an instance of the built-in `__group` type in a tenant',
      tag: 'Groups',
      body: groupCreateSchema,
      response: groupSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res).id;
      await executeEnvCommand(services, req, res, env, {
        type: 'CreateGroup',
        id: newId(),
        typeId: newId(),
        memberRoleId: newId(),
        key: body.group_instance_key,
        tenant: body.group_tenant,
      });
      res.json(await read(rm, env, await findGroup(rm, env, body.group_instance_key)));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/groups',
      summary: 'List groups',
      tag: 'Groups',
      query: paginationSchema,
      response: page(groupSchema, 'GroupPage'),
    },
    async (req, res, input) => {
      const env = envOf(res).id;
      const p = input.query();
      const docs = await rm.instances.find(
        { environment_id: env, resource: GROUP_TYPE },
        { skip: (p.page - 1) * p.per_page, limit: p.per_page },
      );
      const total = await rm.instances.count({ environment_id: env, resource: GROUP_TYPE });
      res.json({
        data: await Promise.all(docs.map((g) => read(rm, env, g))),
        total_count: total,
        page_count: Math.ceil(total / p.per_page),
      });
    },
  );

  route(
    context,
    { method: 'get', path: '/groups/{group_instance_key}', summary: 'Get a group', tag: 'Groups', response: groupSchema },
    async (req, res) => {
      const env = envOf(res).id;
      res.json(await read(rm, env, await findGroup(rm, env, req.params.group_instance_key)));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/groups/{group_instance_key}',
      summary: 'Delete a group with its memberships and role assignments',
      tag: 'Groups',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteGroup', group: req.params.group_instance_key });
      res.status(204).end();
    },
  );

  for (const method of ['put', 'delete'] as const) {
    route(
      context,
      {
        method,
        path: '/groups/{group_instance_key}/users/{user_id}',
        summary: method === 'put' ? 'Add a user to a group (the user gets its roles)' : 'Remove a user from a group',
        tag: 'Groups',
        body: groupAssignUserSchema,
        ...(method === 'put' ? { response: groupSchema } : { status: 204 as const }),
      },
      async (req, res, input) => {
        // No body: the group's tenant.
        const body: { tenant?: string } = input.body() ?? {};
        const env = envOf(res).id;
        const target = { group: req.params.group_instance_key, user: req.params.user_id, tenant: body.tenant ?? null };
        if (method === 'put') {
          await executeEnvCommand(services, req, res, env, { type: 'AddGroupUser', id: newId(), ...target });
          res.json(await read(rm, env, await findGroup(rm, env, req.params.group_instance_key)));
        } else {
          await executeEnvCommand(services, req, res, env, { type: 'RemoveGroupUser', ...target });
          res.status(204).end();
        }
      },
    );
  }

  route(
    context,
    {
      method: 'get',
      path: '/groups/{group_instance_key}/users',
      summary: "A group's members",
      tag: 'Groups',
      query: paginationSchema,
      response: page(groupUserSchema, 'GroupUserPage'),
    },
    async (req, res, input) => {
      const env = envOf(res).id;
      const group = await findGroup(rm, env, req.params.group_instance_key);
      const p = input.query();
      const members = await rm.assignments.find({ environment_id: env, resource_instance: groupRef(group.key), role: GROUP_MEMBER_ROLE });
      res.json(
        pageOf(
          members.map((m) => ({ id: m.user_id, key: m.user })),
          p,
        ),
      );
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/groups/{group_instance_key}/roles',
      summary: 'The roles assigned to a group, each on a resource instance',
      tag: 'Groups',
      query: paginationSchema,
      response: page(groupRoleSchema, 'GroupRolePage'),
    },
    async (req, res, input) => {
      const env = envOf(res).id;
      const group = await findGroup(rm, env, req.params.group_instance_key);
      const roles = await rolesOf(rm, env, group);
      const resources = new Map<string, string>();
      for (const r of roles) {
        if (!resources.has(r.resource.key))
          resources.set(r.resource.key, (await rm.resources.findOne({ environment_id: env, key: r.resource.key }))?.id ?? '');
        r.resource.id = resources.get(r.resource.key)!;
      }
      res.json(pageOf(roles, input.query()));
    },
  );

  for (const method of ['post', 'delete'] as const) {
    route(
      context,
      {
        method,
        path: '/groups/{group_instance_key}/roles',
        summary: method === 'post' ? 'Assign a role on a resource instance to a group (its members get it)' : 'Remove a role from a group',
        tag: 'Groups',
        body: groupAddRoleSchema,
        ...(method === 'post' ? { response: groupSchema } : { status: 204 as const }),
      },
      async (req, res, input) => {
        const body = input.body();
        const env = envOf(res).id;
        const target = {
          group: req.params.group_instance_key,
          role: body.role,
          resource: body.resource,
          resourceInstance: body.resource_instance,
          tenant: body.tenant,
        };
        if (method === 'post') {
          await executeEnvCommand(services, req, res, env, { type: 'AssignGroupRole', id: newId(), relationId: newId(), ...target });
          res.json(await read(rm, env, await findGroup(rm, env, req.params.group_instance_key)));
        } else {
          await executeEnvCommand(services, req, res, env, { type: 'RemoveGroupRole', ...target });
          res.status(204).end();
        }
      },
    );
  }
}
