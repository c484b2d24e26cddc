import { z } from 'zod';
import { ForbiddenError } from '../../shared/errors';
import type { EnvironmentDoc, ReadModels } from '../../shared/read-models/read-models';
import { authOf, resolveEnvironment, resolveProject } from '../http/auth';
import { environmentSchema, environmentStatsSchema, projectSchema } from '../http/responses';
import { executeOrgCommand } from '../http/services';
import { boundedJson } from '../http/validation';
import { route } from './route';
import type { RouteContext } from './route-context';

/** Permit's ProjectUpdate (`active_policy_repo_id` is GitOps, which is not served: refused as unknown). */
export const projectUpdateSchema = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  settings: boundedJson.optional(),
});

/** Permit's EnvironmentUpdate. */
export const environmentUpdateSchema = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  custom_branch_name: z.string().optional(),
  jwks: boundedJson.optional(),
  settings: boundedJson.optional(),
});

/**
 * Updates and deletions of projects and environments, and an environment's
 * statistics. A deletion cascades as explicit events in the organisation
 * stream (see the org decider): the keys scoped to what goes are deleted
 * first, so they are refused by every process from the answer on, then the
 * environments, then the project. The environment streams stay in the log
 * (history and audit keep them) but nothing reaches them any more.
 */
export function orgChangeRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  route(
    context,
    {
      method: 'patch',
      path: '/v2/projects/{proj_id}',
      summary: 'Update a project: the fields given replace their values',
      tag: 'Projects',
      body: projectUpdateSchema,
      response: projectSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const auth = authOf(res);
      const project = await resolveProject(rm, auth, req.params.proj_id);
      await executeOrgCommand(services, req, res, auth.organizationId, { type: 'UpdateProject', project: project.id, ...body });
      res.json(await rm.projects.get(project.id));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/v2/projects/{proj_id}',
      summary: 'Delete a project, its environments and every API key scoped to them',
      tag: 'Projects',
      status: 204,
    },
    async (req, res) => {
      const auth = authOf(res);
      if (auth.environmentId !== null) throw new ForbiddenError('Deleting a project needs a project or organization API key');
      const project = await resolveProject(rm, auth, req.params.proj_id);
      await executeOrgCommand(services, req, res, auth.organizationId, { type: 'DeleteProject', project: project.id });
      res.status(204).end();
    },
  );

  route(
    context,
    {
      method: 'patch',
      path: '/v2/projects/{proj_id}/envs/{env_id}',
      summary: 'Update an environment: the fields given replace their values',
      tag: 'Environments',
      body: environmentUpdateSchema,
      response: environmentSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const auth = authOf(res);
      const project = await resolveProject(rm, auth, req.params.proj_id);
      const env = await resolveEnvironment(rm, auth, project, req.params.env_id);
      await executeOrgCommand(services, req, res, auth.organizationId, {
        type: 'UpdateEnvironment',
        project: project.id,
        environment: env.id,
        changes: {
          name: body.name,
          description: body.description,
          customBranchName: body.custom_branch_name,
          jwks: body.jwks,
          settings: body.settings,
        },
      });
      res.json(await rm.environments.get(env.id));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/v2/projects/{proj_id}/envs/{env_id}',
      summary: 'Delete an environment and its API keys (refused at once in every process); its data is no longer reachable',
      tag: 'Environments',
      status: 204,
    },
    async (req, res) => {
      const auth = authOf(res);
      if (auth.environmentId !== null) throw new ForbiddenError('Deleting an environment needs a project or organization API key');
      const project = await resolveProject(rm, auth, req.params.proj_id);
      const env = await resolveEnvironment(rm, auth, project, req.params.env_id);
      await executeOrgCommand(services, req, res, auth.organizationId, {
        type: 'DeleteEnvironment',
        project: project.id,
        environment: env.id,
      });
      res.status(204).end();
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/v2/projects/{proj_id}/envs/{env_id}/stats',
      summary: "An environment with its statistics (Permit's EnvironmentStats), counted from the read models",
      tag: 'Environments',
      response: environmentStatsSchema,
    },
    async (req, res) => {
      const auth = authOf(res);
      const project = await resolveProject(rm, auth, req.params.proj_id);
      const env = await resolveEnvironment(rm, auth, project, req.params.env_id);
      res.json({ ...env, pdp_configs: [], stats: await environmentStats(rm, env) });
    },
  );
}

/**
 * Permit's Statistics. `roles` counts tenant roles and resource roles;
 * `policies` counts the permissions they grant (role × action pairs), what
 * Permit's policy table shows; no PDP configurations, decision logs or
 * members exist here, so `pdp_configs` and `members` are empty and
 * `has_decision_logs` is false; monthly active users are not measured
 * (`mau` 0).
 */
async function environmentStats(rm: ReadModels, env: EnvironmentDoc) {
  const inEnv = { environment_id: env.id };
  const [roles, resourceRoles, users, resources, tenants] = await Promise.all([
    rm.roles.find(inEnv),
    rm.resourceRoles.find(inEnv),
    rm.users.count(inEnv),
    rm.resources.count(inEnv),
    rm.tenants.count(inEnv),
  ]);
  const policies = [...roles, ...resourceRoles].reduce((sum, role) => sum + role.permissions.length, 0);
  return {
    roles: roles.length + resourceRoles.length,
    users,
    policies,
    resources,
    tenants,
    has_decision_logs: false,
    members: [],
    mau: 0,
  };
}
