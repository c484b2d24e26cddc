import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { ConditionSetDoc, ReadModels } from '../../shared/read-models/read-models';
import { envOf } from '../http/auth';
import { present } from '../http/present';
import { conditionSetListSchema, conditionSetSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { boundedJson, keySchema, paginationSchema } from '../http/validation';
import { readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

const setType = z.enum(['userset', 'resourceset']);

export const conditionSetCreateSchema = z.object({
  key: keySchema,
  type: setType.default('userset'),
  resource_id: z.string().min(1).nullish(),
  name: z.string().min(1),
  description: z.string().nullish(),
  conditions: boundedJson.default({}),
  parent_id: z.string().min(1).nullish(),
});

export const conditionSetUpdateSchema = z.object({
  name: z.string().min(1).optional(),
  description: z.string().nullish(),
  conditions: boundedJson.optional(),
  /** null detaches the set from its parent. */
  parent_id: z.string().min(1).nullish(),
});

const listQuery = paginationSchema.extend({ type: setType.optional() }).extend(asOfQuery.shape);

/** `/condition_sets`: Permit's user sets and resource sets (docs/abac.md). Lists are plain arrays, as Permit answers. */
export function conditionSetRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  async function find(reads: ReadModels, envId: string, ref: string): Promise<ConditionSetDoc> {
    const set = await reads.byKeyOrId(reads.conditionSets, envId, ref);
    if (!set) throw new NotFoundError(`Condition set '${ref}' not found`);
    return set;
  }

  route(
    context,
    {
      method: 'post',
      path: '/condition_sets',
      summary: 'Create a condition set (a user set, or a resource set of one resource type)',
      tag: 'Condition sets',
      body: conditionSetCreateSchema,
      response: conditionSetSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateConditionSet',
        id,
        key: body.key,
        setType: body.type,
        resource: body.resource_id ?? null,
        name: body.name,
        description: body.description ?? '',
        parent: body.parent_id ?? null,
        conditions: body.conditions,
      });
      res.json(present((await rm.conditionSets.get(id))!));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/condition_sets',
      summary: 'List condition sets (?type=userset|resourceset)',
      tag: 'Condition sets',
      query: listQuery,
      response: conditionSetListSchema,
    },
    async (req, res, input) => {
      const { page, per_page, type } = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const filter = { environment_id: envOf(res).id, ...(type ? { type } : {}) };
      const docs = await reads.conditionSets.find(filter, { skip: (page - 1) * per_page, limit: per_page });
      res.json(docs.map(present));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/condition_sets/{condition_set_id}',
      summary: 'Get a condition set',
      tag: 'Condition sets',
      query: asOfQuery,
      response: conditionSetSchema,
    },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      res.json(present(await find(reads, envOf(res).id, req.params.condition_set_id)));
    },
  );

  for (const direction of ['ancestors', 'descendants'] as const) {
    route(
      context,
      {
        method: 'get',
        path: `/condition_sets/{condition_set_id}/${direction}`,
        summary: direction === 'ancestors' ? "A condition set's parents, nearest first" : "A condition set's descendants, nearest first",
        tag: 'Condition sets',
        query: asOfQuery,
        response: conditionSetListSchema,
      },
      async (req, res) => {
        const env = envOf(res).id;
        const reads = await readModelsAsOf(services, req, res);
        const set = await find(reads, env, req.params.condition_set_id);
        const all = await reads.conditionSets.find({ environment_id: env });
        res.json((direction === 'ancestors' ? ancestors(all, set) : descendants(all, set)).map(present));
      },
    );
  }

  route(
    context,
    {
      method: 'patch',
      path: '/condition_sets/{condition_set_id}',
      summary: 'Update a condition set (name, description, conditions, parent_id)',
      tag: 'Condition sets',
      body: conditionSetUpdateSchema,
      response: conditionSetSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res).id;
      await executeEnvCommand(services, req, res, env, {
        type: 'UpdateConditionSet',
        set: req.params.condition_set_id,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description ?? '' } : {}),
        ...(body.conditions !== undefined ? { conditions: body.conditions } : {}),
        ...(body.parent_id !== undefined ? { parent: body.parent_id } : {}),
      });
      res.json(present(await find(rm, env, req.params.condition_set_id)));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/condition_sets/{condition_set_id}',
      summary: 'Delete a condition set with its descendants and the set rules naming them',
      tag: 'Condition sets',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteConditionSet', set: req.params.condition_set_id });
      res.status(204).end();
    },
  );
}

function ancestors(all: ConditionSetDoc[], set: ConditionSetDoc): ConditionSetDoc[] {
  const byKey = new Map(all.map((s) => [s.key, s]));
  const out: ConditionSetDoc[] = [];
  for (
    let at = set._parent === null ? undefined : byKey.get(set._parent);
    at;
    at = at._parent === null ? undefined : byKey.get(at._parent)
  ) {
    out.push(at);
  }
  return out;
}

function descendants(all: ConditionSetDoc[], set: ConditionSetDoc): ConditionSetDoc[] {
  const out: ConditionSetDoc[] = [];
  let level = [set.key];
  while (level.length > 0) {
    const next = all.filter((s) => s._parent !== null && level.includes(s._parent));
    out.push(...next);
    level = next.map((s) => s.key);
  }
  return out;
}
