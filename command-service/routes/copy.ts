import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ProjectDoc } from '../../shared/read-models/read-models';
import type { CommandPipeline } from '../../shared/cqrs/command-pipeline';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors';
import type { TaskEvent } from '../../shared/events';
import { streams } from '../../shared/events';
import type { CopyTarget } from '../../shared/events/task-events';
import type { EventStore } from '../../shared/eventstore/port';
import { deterministicId, newId } from '../../shared/ids';
import { StoredTaskError } from '../../shared/domain/task/errors';
import type { TaskCompletion } from '../../shared/read-models/task-completion';
import type { CopyRequest, TaskCommand, TaskState } from '../../shared/domain/task/decider';
import type { TaskDoc, TaskStore } from '../../shared/read-stores/tasks/port';
import { authOf, resolveProject, type AuthContext } from '../http/auth';
import { errorBody } from '../http/error-middleware';
import { environmentSchema, taskSchema } from '../http/responses';
import { awaitReadModels, metadataOf, type Services } from '../http/services';
import type { RouteModule } from '../app';
import { environmentCreateSchema } from './org';
import { route } from './route';
import { given, queryInteger } from '../http/validation';
import { canonicalId } from '../../shared/ids';

/** Longest `wait` a request may ask for, in seconds; more is refused with 422. */
export const MAX_WAIT_SECONDS = 60;

export const waitQuerySchema = z.object({
  wait: queryInteger(0, MAX_WAIT_SECONDS, 0, `must be at most ${MAX_WAIT_SECONDS} seconds`),
});

/** Permit's EnvironmentCopyScopeFilters: keys to copy and keys to leave, `*` matching any run of characters. */
const copyFilterSchema = z
  .object({
    include: z.array(z.string().min(1).max(256)).max(1000).optional(),
    exclude: z.array(z.string().min(1).max(256)).max(1000).optional(),
  })
  .strict();

/** User sets and resource sets (condition sets, docs/abac.md) by key; one left out takes its descendants and set rules with it. */
const conditionSetFilter = copyFilterSchema.describe('Condition sets by key; one left out takes its descendants and set rules with it');

export const copyBodySchema = z
  .object({
    target_env: z
      .object({ new: environmentCreateSchema.optional(), existing: z.string().min(1).optional() })
      .refine((t) => (t.new === undefined) !== (t.existing === undefined), { message: "give exactly one of 'new' and 'existing'" })
      .meta({ oneOf: [given('new'), given('existing')] }),
    /** Only for `existing`: `fail` (default) changes nothing on a conflict; `overwrite` replaces conflicting objects. */
    conflict_strategy: z.enum(['fail', 'overwrite']).optional(),
    /** Our extension `facts`: also copy tenants, users, instances, assignments and tuples. */
    scope: z
      .object({
        facts: z.boolean().optional(),
        /** Resource types by key; one left out takes its roles, relations, instances, tuples and assignments with it. */
        resources: copyFilterSchema.optional(),
        /** Roles (tenant and resource roles) by key; one left out takes its assignments and derivations with it. */
        roles: copyFilterSchema.optional(),
        user_sets: conditionSetFilter.optional(),
        resource_sets: conditionSetFilter.optional(),
      })
      .strict()
      .optional(),
    /** Our extension: copy the source as it was at a global log position (integer) or a time (ISO 8601). */
    as_of: z.union([z.number().int().min(0), z.iso.datetime({ offset: true })]).optional(),
  })
  .strict();
type CopyBody = z.infer<typeof copyBodySchema>;

export interface CopyRouteDependencies {
  tasks: TaskStore;
  completion: TaskCompletion;
  taskCommands: CommandPipeline<TaskCommand, TaskState, TaskEvent>;
  eventStore: EventStore;
}

/** The background-task response of the seed, plus our `progress`. */
export function presentTask(doc: TaskDoc) {
  return {
    task_id: doc.task_id,
    status: doc.status,
    result: doc.status === 'success' ? doc.result : null,
    error: doc.error ? errorBody(new StoredTaskError(doc.error), doc.task_id) : null,
    progress: doc.progress,
  };
}

/**
 * Seed endpoints 8 and 9: start an environment copy as a background task, and
 * read its result, each optionally held open with `wait`.
 */
export function copyRoutes(deps: CopyRouteDependencies): RouteModule {
  return ({ root }) => {
    const { services } = root;
    const rm = services.readModels;
    const asyncPath = '/v2/projects/{proj_id}/envs/{env_id}/copy/async';

    /**
     * Appends the copy request (the only write; the relay takes it to the task service) and waits until the task read model has it.
     * The key is checked before the body is read: an environment key is refused whatever it sends.
     */
    async function startCopy(req: Request<{ proj_id: string; env_id: string }>, res: Response, copyBody: () => CopyBody): Promise<string> {
      const auth = needsProjectKey(res);
      const body = copyBody();
      const project = await resolveProject(rm, auth, req.params.proj_id);
      const taskId = newId();
      const request = await buildRequest(services, deps, auth, project, req.params.env_id, body, taskId);
      const outcome = await deps.taskCommands.execute(
        streams.task(taskId),
        { type: 'RequestEnvironmentCopy', request },
        metadataOf(req, res),
      );
      await awaitReadModels(services, res, outcome.position);
      return taskId;
    }

    route(
      root,
      {
        method: 'post',
        path: asyncPath,
        summary: 'Copy an environment as a background task',
        tag: 'Environments',
        body: copyBodySchema,
        query: waitQuerySchema,
        status: 202,
        response: taskSchema,
      },
      async (req, res, input) => {
        const { wait } = input.query();
        const taskId = await startCopy(req, res, () => input.body());
        if (wait > 0 && !(await holdUntilFinished(services, deps, taskId, wait, res))) return;
        const doc = await deps.tasks.get(taskId);
        if (!doc) throw new NotFoundError(`Task '${taskId}' not found`);
        // Without wait, the answer is the state the request created (seed §3), even if a quick task has already moved on.
        res.status(202).json(
          wait > 0
            ? presentTask(doc)
            : {
                task_id: taskId,
                status: 'processing',
                result: null,
                error: null,
                progress: { ...doc.progress, source_events_read: 0, events_copied: 0 },
              },
        );
      },
    );

    route(
      root,
      {
        method: 'post',
        path: '/v2/projects/{proj_id}/envs/{env_id}/copy',
        summary: `Copy an environment and answer with it (the SDK's environments.copy); a copy still running after ${MAX_WAIT_SECONDS} s answers 202 with the task`,
        tag: 'Environments',
        body: copyBodySchema,
        response: environmentSchema,
        responses: {
          202: {
            description: `The copy is still running after ${MAX_WAIT_SECONDS} s: the task, to follow with the result endpoint`,
            schema: taskSchema,
          },
        },
      },
      async (req, res, input) => {
        const taskId = await startCopy(req, res, () => input.body());
        if (!(await holdUntilFinished(services, deps, taskId, MAX_WAIT_SECONDS, res))) return;
        const doc = await deps.tasks.get(taskId);
        if (!doc) throw new NotFoundError(`Task '${taskId}' not found`);
        if (doc.status === 'failure' && doc.error) {
          const error = new StoredTaskError(doc.error);
          // A task given up after crashes is our fault, not the request's: 500, not the middleware's default 400.
          if (error.errorCode === 'UNEXPECTED_ERROR') res.status(500).json(errorBody(error, taskId));
          else throw error;
          return;
        }
        if (doc.status === 'success') res.json(doc.result);
        else res.status(202).json(presentTask(doc));
      },
    );

    route(
      root,
      {
        method: 'get',
        path: `${asyncPath}/{task_id}/result`,
        summary: 'The state of an environment copy task',
        tag: 'Environments',
        query: waitQuerySchema,
        response: taskSchema,
      },
      async (req, res, input) => {
        const auth = needsProjectKey(res);
        const { wait } = input.query();
        const project = await resolveProject(rm, auth, req.params.proj_id);
        const taskId = canonicalId(req.params.task_id);
        const task = await deps.tasks.get(taskId);
        const env = await findEnvironment(services, project, req.params.env_id);
        const sameSource =
          task && (task.source_environment === req.params.env_id || (env !== null && task.source_environment_id === env.id));
        if (!task || task.project_id !== project.id || !sameSource) throw new NotFoundError(`Task '${taskId}' not found`);
        if (task.status === 'processing' && wait > 0 && !(await holdUntilFinished(services, deps, taskId, wait, res))) return;
        res.json(presentTask((await deps.tasks.get(taskId)) ?? task));
      },
    );
  };
}

/** Copies reach across environments, so they need a project or organisation key (Permit's SDK refuses them client-side otherwise). */
function needsProjectKey(res: Response): AuthContext {
  const auth = authOf(res);
  if (auth.environmentId !== null)
    throw new ForbiddenError('Copying an environment needs a project or organization API key; this key is bound to one environment');
  return auth;
}

async function findEnvironment(services: Services, project: ProjectDoc, ref: string) {
  const rm = services.readModels;
  return (
    (await rm.environments.findOne({ project_id: project.id, key: ref })) ??
    (await rm.environments.get(canonicalId(ref)).then((e) => (e?.project_id === project.id ? e : null)))
  );
}

/**
 * The request event. Names are resolved here, from the read models, and kept
 * as given too: a source (or existing target) that does not resolve is not a
 * 4xx but a task that fails with NOT_FOUND naming it, as the seed specifies.
 */
async function buildRequest(
  services: Services,
  deps: CopyRouteDependencies,
  auth: AuthContext,
  project: ProjectDoc,
  sourceRef: string,
  body: CopyBody,
  taskId: string,
): Promise<CopyRequest> {
  const source = await findEnvironment(services, project, sourceRef);
  let target: CopyTarget;
  if (body.target_env.new) {
    const env = body.target_env.new;
    target = {
      kind: 'new',
      environmentId: deterministicId(taskId, 'target-environment'),
      key: env.key,
      name: env.name,
      description: env.description ?? null,
      customBranchName: env.custom_branch_name ?? null,
      jwks: env.jwks ?? {},
      settings: env.settings ?? {},
    };
  } else {
    const ref = body.target_env.existing!;
    const existing = await findEnvironment(services, project, ref);
    if (existing && source && existing.id === source.id) {
      throw new ValidationError([
        { loc: ['body', 'target_env', 'existing'], msg: 'the target must be another environment than the source', type: 'value_error' },
      ]);
    }
    target = { kind: 'existing', ref, environmentId: existing?.id ?? null, conflictStrategy: body.conflict_strategy ?? 'fail' };
  }
  let asOf: CopyRequest['asOf'] = null;
  if (typeof body.as_of === 'number') {
    const head = await deps.eventStore.headPosition();
    if (body.as_of > head)
      throw new ValidationError([{ loc: ['body', 'as_of'], msg: `the log only reaches position ${head}`, type: 'value_error' }]);
    asOf = { position: body.as_of };
  } else if (typeof body.as_of === 'string') {
    asOf = { time: new Date(body.as_of).toISOString() };
  }
  return {
    taskId,
    organizationId: auth.organizationId,
    projectId: project.id,
    source: { ref: sourceRef, environmentId: source?.id ?? null },
    target,
    scope: {
      facts: body.scope?.facts ?? false,
      ...(body.scope?.resources ? { resources: body.scope.resources } : {}),
      ...(body.scope?.roles ? { roles: body.scope.roles } : {}),
      ...(body.scope?.user_sets ? { userSets: body.scope.user_sets } : {}),
      ...(body.scope?.resource_sets ? { resourceSets: body.scope.resource_sets } : {}),
    },
    asOf,
    sourceEventsTotal: source ? (await deps.eventStore.streamVersion(streams.environment(source.id))) + 1 : 0,
  };
}

/**
 * Holds the request until the task finishes or `wait` seconds pass. Returns
 * false when the client went away meanwhile (nothing is to be sent then).
 */
async function holdUntilFinished(
  services: Services,
  deps: CopyRouteDependencies,
  taskId: string,
  waitSeconds: number,
  res: Response,
): Promise<boolean> {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.on('close', onClose);
  try {
    const deadline = Date.now() + waitSeconds * 1000;
    const outcome = await deps.completion.wait(taskId, waitSeconds * 1000, gone.signal);
    // The projection reports an outcome before its batch commits: wait until the read model shows it.
    if (outcome.finished) await services.freshness.waitForPosition(outcome.position, Math.max(1, deadline - Date.now()));
  } finally {
    res.off('close', onClose);
  }
  return !gone.signal.aborted;
}
