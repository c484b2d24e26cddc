import type { GrantQueries } from '../../grant-queries/grant-queries';
import { authOf, keyEnvironment } from '../../http/auth';
import { authorizedUsersAnswerSchema, userPermissionsAnswerSchema } from '../../http/responses';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { abacInputsOf } from './abac-inputs';
import { recordUserPermissions, sourceOf } from './decision-entries';
import { atOnePosition, queriesAsOf } from './positions';
import { authorizedUsersSchema, userPermissionsSchema } from './schemas';

/**
 * `POST /user-permissions` (what a user may do, per instance and tenant) and
 * `POST /authorized_users` (who may do an action on a resource). Both page by
 * cursor: the answer carries `next_cursor` (null on the last page), and the
 * next page is asked with the same body plus `cursor`. As Permit's PDP answers
 * them: user permissions wrapped in `result` (the SDKs' getUserPermissions
 * unwrap it), authorized users not (the Python SDK parses the body itself).
 */
export function permissionRoutes(context: RouteContext, queries: GrantQueries): void {
  const { services } = context;
  const rm = services.readModels;

  route(
    context,
    {
      method: 'post',
      path: '/user-permissions',
      tag: 'Permission checks',
      body: userPermissionsSchema,
      response: userPermissionsAnswerSchema,
      readOnly: true,
      summary: 'Permissions of a user per instance and tenant: {result: {permissions}, next_cursor}; as_of answers as of then',
    },
    async (req, res, input) => {
      const body = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      // A cursor does not name the position: a page of an answer continues as of its receipt (X-Event-Position).
      const { context: _context, as_of: asOf, ...asked } = body;
      // The user's attributes and the context, for set rules (part of the question a cursor belongs to).
      const abac = abacInputsOf(req.body, ['body']);
      const request = abac ? { ...asked, abac } : asked;
      const page =
        asOf === undefined
          ? await atOnePosition(services, res, () => queries.userPermissions(env.id, request))
          : await (await queriesAsOf(services, res, env, asOf, ['body', 'as_of'])).userPermissions(env.id, request);
      const answer = { result: { permissions: page.permissions }, next_cursor: page.next_cursor };
      recordUserPermissions(services.decisionLog, sourceOf(res, '/user-permissions', env), request, answer);
      res.json(answer);
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/authorized_users',
      tag: 'Permission checks',
      body: authorizedUsersSchema,
      response: authorizedUsersAnswerSchema,
      readOnly: true,
      summary: 'Users who may do an action on a resource: {resource, tenant, users, next_cursor}; as_of answers as of then',
    },
    async (req, res, input) => {
      const body = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const { context: _context, as_of: asOf, ...asked } = body;
      const abac = abacInputsOf(req.body, ['body']);
      const request = abac ? { ...asked, abac } : asked;
      const { next_cursor, ...result } =
        asOf === undefined
          ? await atOnePosition(services, res, () => queries.authorizedUsers(env.id, request))
          : await (await queriesAsOf(services, res, env, asOf, ['body', 'as_of'])).authorizedUsers(env.id, request);
      // Unwrapped, as Permit's PDP answers it (it unwraps OPA's `result`): the Python SDK parses the body as
      // AuthorizedUsersResult. `next_cursor` is our addition beside it (the SDK's model ignores unknown fields).
      res.json({ ...result, next_cursor });
    },
  );
}
