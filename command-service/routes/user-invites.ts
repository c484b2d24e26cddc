import { z } from 'zod';
import { canonicalId } from '../../shared/ids';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { ReadModels, UserInviteDoc } from '../../shared/read-models/read-models';
import { envOf } from '../http/auth';
import { searchedPage } from '../http/list-filters';
import { present } from '../http/present';
import { userInvitePageSchema, userInviteSchema, userSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { boundedJson } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

/** Permit's key rule for invites (and the user an approval names): an e-mail address may be a key. */
const inviteKey = z
  .string()
  .regex(/^[A-Za-z0-9|@+\-._]+$/, 'must match ^[A-Za-z0-9|@+\\-._]+$')
  .max(256);
/**
 * Permit's UserInviteStatus has `approved` too, but only `approve` makes the user an approved invite
 * stands for: a body saying `approved` is refused here, where the document states it.
 */
const status = z
  .literal('pending', { error: "must be 'pending': an invite is approved by POST …/user_invites/{user_invite_id}/approve" })
  .describe("'pending' (Permit's `approved` is reached by POST …/approve only)");
const ref = z.string().min(1);

/** Permit's ElementsUserInviteCreate. `resource_instance_id` may be left out (null) for a top-level role. */
export const userInviteCreateSchema = z.object({
  key: inviteKey,
  status,
  email: z.email(),
  first_name: z.string(),
  last_name: z.string(),
  role_id: ref.describe("The role's id (a top-level role's key is taken too)"),
  tenant_id: ref.describe("The tenant's id or key"),
  resource_instance_id: ref.nullish().describe("The instance's id or `type:key`; needed for a resource role (the role is given on it)"),
});

/** Permit's ElementsUserInviteUpdate, as a PATCH: the fields given change (null: absent); `key`, if given, must be the invite's. */
export const userInviteUpdateSchema = z.object({
  key: inviteKey.nullish(),
  status: status.nullish(),
  email: z.email().nullish(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  role_id: ref.nullish(),
  tenant_id: ref.nullish(),
  resource_instance_id: ref.nullish(),
});

/** Permit's ElementsUserInviteApprove: the user's key in the application, its e-mail (the invited one) and attributes. */
export const userInviteApproveSchema = z.object({
  email: z.email(),
  key: inviteKey,
  attributes: boundedJson,
});

const listQuery = pastPaginationSchema.omit({ include_total_count: true }).extend({
  role: ref.optional().describe('Only invites to this role (its key or id)'),
  tenant: ref.optional().describe('Only invites to this tenant (its key or id)'),
  search: ref.optional().describe('A case-insensitive substring of the e-mail, key or names'),
});
const SEARCH_FIELDS = ['email', 'key', 'first_name', 'last_name'] as const;

/** A document names `value` by key or by id (either UUID spelling). */
const names = (key: string, id: string | null, value: string) => key === value || id === canonicalId(value);

/** `/user_invites`: Permit's user invites (docs/permit-compat.md, "User invites"). */
export function userInviteRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  async function find(reads: ReadModels, envId: string, ref: string): Promise<UserInviteDoc> {
    const invite = await reads.byKeyOrId(reads.userInvites, envId, ref);
    if (!invite) throw new NotFoundError(`User invite '${ref}' not found`);
    return invite;
  }

  route(
    context,
    {
      method: 'post',
      path: '/user_invites',
      summary: 'Invite a user (by e-mail) to a role in a tenant; pending until approved. Sends no e-mail',
      tag: 'User invites',
      body: userInviteCreateSchema,
      response: userInviteSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateUserInvite',
        id,
        key: body.key,
        email: body.email,
        firstName: body.first_name,
        lastName: body.last_name,
        status: body.status,
        role: body.role_id,
        tenant: body.tenant_id,
        resourceInstance: body.resource_instance_id ?? null,
      });
      res.json(present((await rm.userInvites.get(id))!));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/user_invites',
      summary: 'List user invites ({data, total_count, page_count}); role, tenant: key or id; search: in e-mail, key or names',
      tag: 'User invites',
      query: listQuery,
      response: userInvitePageSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const { role, tenant } = query;
      const keep =
        role === undefined && tenant === undefined
          ? undefined
          : (doc: UserInviteDoc) =>
              (role === undefined || names(doc._role, doc.role_id, role)) &&
              (tenant === undefined || names(doc._tenant, doc.tenant_id, tenant));
      const page = await searchedPage(
        reads.userInvites,
        { environment_id: envOf(res).id },
        query,
        { text: query.search, fields: SEARCH_FIELDS, keep },
        present,
      );
      res.json(page);
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/user_invites/{user_invite_id}',
      summary: 'Get a user invite (by id or key)',
      tag: 'User invites',
      query: asOfQuery,
      response: userInviteSchema,
    },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      res.json(present(await find(reads, envOf(res).id, req.params.user_invite_id)));
    },
  );

  route(
    context,
    {
      method: 'patch',
      path: '/user_invites/{user_invite_id}',
      summary: 'Update a pending user invite (the fields given)',
      tag: 'User invites',
      body: userInviteUpdateSchema,
      response: userInviteSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res).id;
      // null is absent (Permit's SDK 2.x sends every field it was not given as null).
      const { key, status, email, first_name, last_name, role_id, tenant_id, resource_instance_id } = body;
      await executeEnvCommand(services, req, res, env, {
        type: 'UpdateUserInvite',
        invite: req.params.user_invite_id,
        ...(key != null ? { key } : {}),
        ...(status != null ? { status } : {}),
        ...(email != null ? { email } : {}),
        ...(first_name != null ? { firstName: first_name } : {}),
        ...(last_name != null ? { lastName: last_name } : {}),
        ...(role_id != null ? { role: role_id } : {}),
        ...(tenant_id != null ? { tenant: tenant_id } : {}),
        ...(resource_instance_id != null ? { resourceInstance: resource_instance_id } : {}),
      });
      res.json(present(await find(rm, env, req.params.user_invite_id)));
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/user_invites/{user_invite_id}/approve',
      summary:
        "Approve a pending invite: the user `key` (e-mail: the invited one) is created or updated and given the invite's role; answers the user",
      tag: 'User invites',
      body: userInviteApproveSchema,
      response: userSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res).id;
      await executeEnvCommand(services, req, res, env, {
        type: 'ApproveUserInvite',
        invite: req.params.user_invite_id,
        user: body.key,
        email: body.email,
        attributes: body.attributes,
        newUserId: newId(),
        assignmentId: newId(),
      });
      res.json(await rm.users.findOne({ environment_id: env, key: body.key }));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/user_invites/{user_invite_id}',
      summary: 'Delete a user invite (an approved one too: its user and role stay)',
      tag: 'User invites',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteUserInvite', invite: req.params.user_invite_id });
      res.status(204).end();
    },
  );
}
