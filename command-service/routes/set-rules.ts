import { z } from 'zod';
import { newId } from '../../shared/ids';
import type { ReadModels, SetRuleDoc } from '../../shared/read-models/read-models';
import { envOf } from '../http/auth';
import { present } from '../http/present';
import { setRuleListSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { paginationSchema } from '../http/validation';
import { readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';
import { canonicalId } from '../../shared/ids';

/** Permit's ConditionSetRuleCreate / ConditionSetRuleRemove. */
export const setRuleBodySchema = z.object({
  user_set: z.string().min(1),
  /** `resource:action`. */
  permission: z.string().regex(/^[^:]+:[^:]+$/, "must have the form 'resource:action'"),
  resource_set: z.string().min(1),
  /** user_set names a top-level role (its users are the set). */
  is_role: z.boolean().nullish(),
  /** resource_set names a resource type (all its instances are the set). */
  is_resource: z.boolean().nullish(),
});

const listQuery = paginationSchema
  .extend({ user_set: z.string().min(1).optional(), permission: z.string().min(1).optional(), resource_set: z.string().min(1).optional() })
  .extend(asOfQuery.shape);

/** `/set_rules`: grants of a permission to a user set on a resource set (docs/abac.md). */
export function setRuleRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  const parts = (body: z.infer<typeof setRuleBodySchema>) => ({
    userSet: body.user_set,
    permission: body.permission,
    resourceSet: body.resource_set,
    isRole: body.is_role ?? false,
    isResource: body.is_resource ?? false,
  });

  route(
    context,
    {
      method: 'post',
      path: '/set_rules',
      summary: 'Grant a permission to a user set on a resource set (answers the rule, in a list, as Permit)',
      tag: 'Set rules',
      body: setRuleBodySchema,
      response: setRuleListSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res).id;
      await executeEnvCommand(services, req, res, env, { type: 'CreateSetRule', id: newId(), ...parts(body) });
      res.json((await ruleOf(rm, env, body)).map(present));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/set_rules',
      summary: 'List set rules (?user_set, ?permission, ?resource_set)',
      tag: 'Set rules',
      query: listQuery,
      response: setRuleListSchema,
    },
    async (req, res, input) => {
      const { page, per_page, user_set, permission, resource_set } = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const filter = {
        environment_id: envOf(res).id,
        ...(user_set ? { user_set } : {}),
        ...(permission ? { permission } : {}),
        ...(resource_set ? { resource_set } : {}),
      };
      const docs = await reads.setRules.find(filter, { skip: (page - 1) * per_page, limit: per_page });
      res.json(docs.map(present));
    },
  );

  route(
    context,
    { method: 'delete', path: '/set_rules', summary: 'Remove a set rule', tag: 'Set rules', body: setRuleBodySchema, status: 204 },
    async (req, res, input) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteSetRule', ...parts(input.body()) });
      res.status(204).end();
    },
  );
}

/** The rule a body names, as stored (set keys; an id in the body resolves to the stored key by the decider, so match on both). */
async function ruleOf(rm: ReadModels, env: string, body: z.infer<typeof setRuleBodySchema>): Promise<SetRuleDoc[]> {
  const rules = await rm.setRules.find({ environment_id: env, permission: body.permission });
  const named = rules.filter(
    (r) => r._user_set_is_role === (body.is_role ?? false) && r._resource_set_is_resource === (body.is_resource ?? false),
  );
  const [userSet, resourceSet] = await Promise.all([keyOf(rm, env, body.user_set), keyOf(rm, env, body.resource_set)]);
  return named
    .filter((r) => [body.user_set, userSet].includes(r.user_set) && [body.resource_set, resourceSet].includes(r.resource_set))
    .slice(0, 1);
}

/** The key of a condition set given by id (set rules store keys); the ref itself otherwise. */
async function keyOf(rm: ReadModels, env: string, ref: string): Promise<string> {
  const byId = await rm.conditionSets.get(canonicalId(ref));
  return byId && byId.environment_id === env ? byId.key : ref;
}
