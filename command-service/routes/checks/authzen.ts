import type { Request } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../../shared/errors';
import type { GrantQueries } from '../../grant-queries/grant-queries';
import type { CheckRequest } from '../../grant-queries/types';
import { authOf, keyEnvironment } from '../../http/auth';
import { parse } from '../../http/validation';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { authzenBadRequests, authzenErrors, requireJsonContentType } from './authzen-errors';
import { authzenAbacInputs, checkOf, mergedEvaluation, resourceRef } from './authzen-questions';
import { actionSearchSchema, evaluationSchema, evaluationsSchema, resourceSearchSchema, subjectSearchSchema } from './authzen-schemas';
import { recordChecks, sourceOf } from './decision-entries';
import { atOnePosition } from './positions';

const ENDPOINT_EVALUATIONS = '/access/v1/evaluations';

const decision = z.strictObject({ decision: z.boolean() }).meta({ id: 'AuthZenDecision' });
/** A decision in `/evaluations`; an evaluation that could not be made is `false` with the reason (the spec's evaluation-level error). */
const evaluationDecision = z.strictObject({
  decision: z.boolean(),
  context: z.strictObject({ error: z.strictObject({ status: z.literal(400), message: z.string() }) }).optional(),
});
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

const baseUrl = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/** The AuthZEN operations that take a body: their client errors are AuthZEN's 400 (authzen-errors.ts). */
const BODY_PATHS = [
  '/access/v1/evaluation',
  '/access/v1/evaluations',
  '/access/v1/search/subject',
  '/access/v1/search/resource',
  '/access/v1/search/action',
];

/**
 * The AuthZEN Authorization API 1.0 as Permit's PDP serves it: evaluations
 * and searches answered by the same grant queries as `/allowed` and
 * `/authorized_users`, with the environment of the API key (as every PDP
 * endpoint here, the key is required, the discovery document included), and
 * the same attributes for set rules (authzen-questions.ts). Subjects are users
 * whatever their `type`; searches answer every result in one page
 * (`next_token` empty), but the subject search, which pages as
 * `/authorized_users` does. Unknown members are ignored and a bad request is a
 * 400 with a message (authzen-schemas.ts, authzen-errors.ts), as the spec says.
 */
export function authzenRoutes(context: RouteContext, queries: GrantQueries): void {
  const { services } = context;
  const rm = services.readModels;
  // Under the PDP's tag: they read, as /allowed does.
  const tag = 'Permission checks';
  context.errorHandlers.push(authzenBadRequests(BODY_PATHS));

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
      ...authzenErrors,
      summary: 'AuthZEN access evaluation: may the subject do the action on the resource (properties and context reach set rules)',
    },
    async (req, res, input) => {
      requireJsonContentType(req);
      const question = checkOf(input.body());
      const env = await keyEnvironment(rm, authOf(res));
      const { allow } = await atOnePosition(services, res, () => queries.check(env.id, question));
      recordChecks(services.decisionLog, sourceOf(res, '/access/v1/evaluation', env), [{ question, allow, result: { decision: allow } }]);
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
      response: z.union([z.strictObject({ evaluations: z.array(evaluationDecision) }), decision]).meta({ id: 'AuthZenEvaluations' }),
      readOnly: true,
      ...authzenErrors,
      summary:
        'AuthZEN access evaluations: top-level subject/action/resource/context are defaults for each; none (or []): one evaluation, answered as /evaluation; options.evaluations_semantic',
    },
    async (req, res, input) => {
      requireJsonContentType(req);
      const body = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const listed = body.evaluations ?? [];
      if (listed.length === 0) {
        // Backwards compatible with the single evaluation: the top level is the question, and must be complete.
        const question = checkOf(parse(evaluationSchema, req.body, 'body'));
        const { allow } = await atOnePosition(services, res, () => queries.check(env.id, question));
        recordChecks(services.decisionLog, sourceOf(res, ENDPOINT_EVALUATIONS, env), [{ question, allow, result: { decision: allow } }]);
        res.json({ decision: allow });
        return;
      }
      // An evaluation still incomplete once the defaults fill it in is an evaluation-level error: false, saying why.
      const merged = listed.map((one) => mergedEvaluation(body, one));
      const semantic = body.options?.evaluations_semantic ?? 'execute_all';
      const evaluations = await atOnePosition(services, res, async () => {
        const out: Array<z.infer<typeof evaluationDecision>> = [];
        for (const one of merged) {
          const allow = one.ok ? (await queries.check(env.id, one.check)).allow : false;
          out.push(
            one.ok ? { decision: allow } : { decision: false, context: { error: { status: 400, message: missingMessage(one.missing) } } },
          );
          // The short-circuit semantics stop at (and include) the first decisive answer; an error is a denial.
          if ((semantic === 'deny_on_first_deny' && !allow) || (semantic === 'permit_on_first_permit' && allow)) break;
        }
        return out;
      });
      // The evaluations answered from the model (not those that could not be made, nor those a short circuit skipped).
      const decided = evaluations.flatMap((answer, i) => {
        const one = merged[i]!;
        return one.ok ? [{ question: one.check, allow: answer.decision, result: { decision: answer.decision } }] : [];
      });
      recordChecks(services.decisionLog, sourceOf(res, ENDPOINT_EVALUATIONS, env), decided);
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
      ...authzenErrors,
      summary: 'AuthZEN subject search: the users who may do the action on the resource (paged by page.token and page.limit)',
    },
    async (req, res, input) => {
      requireJsonContentType(req);
      const { subject, action, resource, context: sent, page: asked } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const abac = authzenAbacInputs({ action, resource, context: sent });
      const found = await atOnePosition(services, res, () =>
        withAuthzenToken(() =>
          queries.authorizedUsers(env.id, {
            action: action.name,
            resource: resourceRef(resource),
            ...(asked?.token ? { cursor: asked.token } : {}),
            limit: asked?.limit ?? 100,
            ...(abac ? { abac } : {}),
          }),
        ),
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
      ...authzenErrors,
      summary: 'AuthZEN resource search: the instances of the type the subject may do the action on (all in one page)',
    },
    async (req, res, input) => {
      requireJsonContentType(req);
      const { subject, action, resource, context: sent } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const permission = `${resource.type}:${action.name}`;
      // The subject's properties and the context (with the action's properties) for set rules; each candidate is its stored self.
      const abac = authzenAbacInputs({ subject, action, context: sent });
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
            ...(abac ? { abac } : {}),
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
      ...authzenErrors,
      summary: "AuthZEN action search: the resource type's actions the subject may do on the resource (all in one page)",
    },
    async (req, res, input) => {
      requireJsonContentType(req);
      const { subject, resource, context: sent } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const names = await atOnePosition(services, res, async () => {
        const type = await rm.resources.findOne({ environment_id: env.id, key: resource.type });
        const actions = type ? Object.keys(type.actions).sort() : [];
        const allowed: string[] = [];
        for (const name of actions) {
          const check: CheckRequest = checkOf({ subject, action: { name }, resource, context: sent });
          if ((await queries.check(env.id, check)).allow) allowed.push(name);
        }
        return allowed;
      });
      res.json({ results: names.map((name) => ({ name })), page: { next_token: '' } });
    },
  );
}

const missingMessage = (missing: string[]) => `${missing.join(', ')}: missing in the evaluation and at the top level`;

/** A paging token the grant queries refuse is named as AuthZEN names it: `page.token`. */
async function withAuthzenToken<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ValidationError && error.detail.some((d) => d.loc.join('.') === 'body.cursor')) {
      throw new ValidationError([
        {
          loc: ['body', 'page', 'token'],
          msg: 'Invalid token: pass back the page.next_token of the same search unchanged',
          type: 'value_error',
        },
      ]);
    }
    throw error;
  }
}
