import type { Request } from 'express';
import { z } from 'zod';
import { DEFAULT_TENANT } from '../../grant-queries/types';
import type { GrantQueries } from '../../grant-queries/grant-queries';
import type { ResourceRef } from '../../grant-queries/types';
import { authOf, keyEnvironment } from '../../http/auth';
import { ValidationError } from '../../../shared/errors';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { atOnePosition } from './positions';
import {
  actionSearchSchema,
  evaluationSchema,
  evaluationsSchema,
  resourceSearchSchema,
  subjectSearchSchema,
  type resourceSchema,
} from './authzen-schemas';

const decision = z.strictObject({ decision: z.boolean() });
const configurationAnswer = z
  .strictObject({
    policy_decision_point: z.string(),
    access_evaluation_endpoint: z.string(),
    access_evaluations_endpoint: z.string(),
    search_subject_endpoint: z.string(),
    search_resource_endpoint: z.string(),
    search_action_endpoint: z.string(),
  })
  .meta({ id: 'AuthZenConfiguration' });
const page = z.strictObject({ next_token: z.string() });
const entityResults = z
  .strictObject({ results: z.array(z.strictObject({ type: z.string(), id: z.string() })), page })
  .meta({ id: 'AuthZenEntitySearch' });
const actionResults = z.strictObject({ results: z.array(z.strictObject({ name: z.string() })), page }).meta({ id: 'AuthZenActionSearch' });

/** The resource as the grant queries name it: `type:id` in the tenant `properties.tenant` (else `default`). */
function resourceRef(resource: z.infer<typeof resourceSchema>): ResourceRef {
  const tenant = resource.properties?.tenant;
  return { type: resource.type, key: resource.id, tenant: typeof tenant === 'string' && tenant !== '' ? tenant : DEFAULT_TENANT };
}

const baseUrl = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/**
 * The AuthZEN Authorization API 1.0 as Permit's PDP serves it: evaluations
 * and searches answered by the same grant queries as `/allowed` and
 * `/authorized_users`, with the environment of the API key (as every PDP
 * endpoint here, the key is required, the discovery document included).
 * Subjects are users whatever their `type`; searches answer every result in
 * one page (`next_token` empty), but the subject search, which pages as
 * `/authorized_users` does.
 */
export function authzenRoutes(context: RouteContext, queries: GrantQueries): void {
  const { services } = context;
  const rm = services.readModels;
  // Under the PDP's tag: they read, as /allowed does.
  const tag = 'Permission checks';

  route(
    context,
    {
      method: 'get',
      path: '/.well-known/authzen-configuration',
      tag,
      response: configurationAnswer,
      summary: 'AuthZEN PDP metadata: the endpoints below, under this base URL',
    },
    (req, res) => {
      const base = baseUrl(req);
      res.json({
        policy_decision_point: base,
        access_evaluation_endpoint: `${base}/access/v1/evaluation`,
        access_evaluations_endpoint: `${base}/access/v1/evaluations`,
        search_subject_endpoint: `${base}/access/v1/search/subject`,
        search_resource_endpoint: `${base}/access/v1/search/resource`,
        search_action_endpoint: `${base}/access/v1/search/action`,
      });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/access/v1/evaluation',
      tag,
      body: evaluationSchema,
      response: decision,
      readOnly: true,
      summary: 'AuthZEN access evaluation: may the subject do the action on the resource',
    },
    async (_req, res, input) => {
      const { subject, action, resource } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const { allow } = await atOnePosition(services, res, () =>
        queries.check(env.id, { user: subject.id, action: action.name, resource: resourceRef(resource) }),
      );
      res.json({ decision: allow });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/access/v1/evaluations',
      tag,
      body: evaluationsSchema,
      response: z.strictObject({ evaluations: z.array(decision) }).meta({ id: 'AuthZenEvaluations' }),
      readOnly: true,
      summary: 'AuthZEN access evaluations: top-level subject/action/resource are defaults for each; options.evaluations_semantic',
    },
    async (_req, res, input) => {
      const body = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      // Each evaluation complete once the defaults fill it in; a gap is the client's to fix (422 naming it).
      const complete = body.evaluations.map((one, index) => {
        const subject = one.subject ?? body.subject;
        const action = one.action ?? body.action;
        const resource = one.resource ?? body.resource;
        const missing = !subject ? 'subject' : !action ? 'action' : !resource ? 'resource' : null;
        if (missing || !subject || !action || !resource) {
          throw new ValidationError([
            { loc: ['body', 'evaluations', index, missing ?? 'subject'], msg: `no ${missing} here nor at the top level`, type: 'missing' },
          ]);
        }
        return { user: subject.id, action: action.name, resource: resourceRef(resource) };
      });
      const semantic = body.options?.evaluations_semantic ?? 'execute_all';
      const evaluations = await atOnePosition(services, res, async () => {
        const out: Array<{ decision: boolean }> = [];
        for (const check of complete) {
          const { allow } = await queries.check(env.id, check);
          out.push({ decision: allow });
          // The short-circuit semantics stop at (and include) the first decisive answer.
          if ((semantic === 'deny_on_first_deny' && !allow) || (semantic === 'permit_on_first_permit' && allow)) break;
        }
        return out;
      });
      res.json({ evaluations });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/access/v1/search/subject',
      tag,
      body: subjectSearchSchema,
      response: entityResults,
      readOnly: true,
      summary: 'AuthZEN subject search: the users who may do the action on the resource (paged by page.token)',
    },
    async (_req, res, input) => {
      const { subject, action, resource, page: asked } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const found = await atOnePosition(services, res, () =>
        queries.authorizedUsers(env.id, {
          action: action.name,
          resource: resourceRef(resource),
          ...(asked?.token ? { cursor: asked.token } : {}),
          limit: asked?.limit ?? 100,
        }),
      );
      res.json({
        results: Object.keys(found.users).map((id) => ({ type: subject.type, id })),
        page: { next_token: found.next_cursor ?? '' },
      });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/access/v1/search/resource',
      tag,
      body: resourceSearchSchema,
      response: entityResults,
      readOnly: true,
      summary: 'AuthZEN resource search: the instances of the type the subject may do the action on',
    },
    async (_req, res, input) => {
      const { subject, action, resource } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const permission = `${resource.type}:${action.name}`;
      const ids = await atOnePosition(services, res, async () => {
        const found = new Set<string>();
        const tenants: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await queries.userPermissions(env.id, {
            user: subject.id,
            resource_types: [resource.type],
            limit: 1000,
            ...(cursor ? { cursor } : {}),
          });
          for (const entry of Object.values(page.permissions)) {
            if (!entry.permissions.includes(permission)) continue;
            if (entry.tenant) tenants.push(entry.tenant.key);
            else if (entry.resource) found.add(entry.resource.key);
          }
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        // A tenant role's permission covers every instance of the type in its tenant.
        if (tenants.length > 0) {
          const inTenants = await rm.instances.find(
            { environment_id: env.id, resource: resource.type, tenant: { $in: tenants } },
            { fields: ['key'] },
          );
          for (const instance of inTenants) found.add(instance.key);
        }
        return [...found].sort();
      });
      res.json({ results: ids.map((id) => ({ type: resource.type, id })), page: { next_token: '' } });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/access/v1/search/action',
      tag,
      body: actionSearchSchema,
      response: actionResults,
      readOnly: true,
      summary: "AuthZEN action search: the resource type's actions the subject may do on the resource",
    },
    async (_req, res, input) => {
      const { subject, resource } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const names = await atOnePosition(services, res, async () => {
        const type = await rm.resources.findOne({ environment_id: env.id, key: resource.type });
        const actions = type ? Object.keys(type.actions).sort() : [];
        const allowed: string[] = [];
        for (const name of actions) {
          const { allow } = await queries.check(env.id, { user: subject.id, action: name, resource: resourceRef(resource) });
          if (allow) allowed.push(name);
        }
        return allowed;
      });
      res.json({ results: names.map((name) => ({ name })), page: { next_token: '' } });
    },
  );
}
