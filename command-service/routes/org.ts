import { z } from 'zod';
import { ForbiddenError, NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { authOf, resolveEnvironment, resolveProject } from '../http/auth';
import { listPage } from '../http/pagination';
import { environmentListSchema, environmentSchema, projectListSchema, projectSchema } from '../http/responses';
import { executeEnvCommand, executeOrgCommand } from '../http/services';
import { defaultTenantCommand } from '../../shared/domain/env/default-tenant';
import { boundedJson, keySchema, paginationSchema } from '../http/validation';
import { apiKeyRoutes } from './api-keys';
import { orgChangeRoutes } from './org-changes';
import { route } from './route';
import type { RouteContext } from './route-context';

export const projectCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  urn_namespace: z.string().optional(),
  settings: boundedJson.optional(),
});
export const environmentCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  custom_branch_name: z.string().optional(),
  jwks: boundedJson.optional(),
  settings: boundedJson.optional(),
});
/** What Permit makes with every new project. */
const DEFAULT_ENVIRONMENTS = [
  { key: 'production', name: 'Production' },
  { key: 'development', name: 'Development' },
].map((env) => ({ ...env, description: null, customBranchName: null, jwks: {}, settings: {} }));

/** API keys, projects and environments: the organisation stream. */
export function orgRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  apiKeyRoutes(context);
  orgChangeRoutes(context);

  route(
    context,
    {
      method: 'post',
      path: '/v2/projects',
      summary: 'Create a project',
      tag: 'Projects',
      body: projectCreateSchema,
      response: projectSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const auth = authOf(res);
      if (auth.projectId !== null) throw new ForbiddenError('Creating a project needs an organization API key');
      const id = newId();
      const environments = DEFAULT_ENVIRONMENTS.map((env) => ({ id: newId(), ...env }));
      await executeOrgCommand(services, req, res, auth.organizationId, {
        type: 'CreateProject',
        id,
        key: body.key,
        name: body.name,
        description: body.description ?? null,
        urnNamespace: body.urn_namespace,
        settings: body.settings,
        environments,
      });
      for (const env of environments) await executeEnvCommand(services, req, res, env.id, defaultTenantCommand(env.id));
      res.json(await rm.projects.get(id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/v2/projects',
      summary: 'List projects',
      tag: 'Projects',
      query: paginationSchema,
      response: projectListSchema,
    },
    async (_req, res, input) => {
      const auth = authOf(res);
      const page = input.query();
      if (auth.projectId !== null) {
        res.json([await rm.projects.get(auth.projectId)].filter(Boolean));
        return;
      }
      res.json(await listPage(rm.projects, { organization_id: auth.organizationId }, page));
    },
  );

  route(
    context,
    { method: 'get', path: '/v2/projects/{proj_id}', summary: 'Get a project', tag: 'Projects', response: projectSchema },
    async (req, res) => {
      res.json(await resolveProject(rm, authOf(res), req.params.proj_id));
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/v2/projects/{proj_id}/envs',
      summary: 'Create an environment',
      tag: 'Environments',
      body: environmentCreateSchema,
      response: environmentSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const auth = authOf(res);
      if (auth.environmentId !== null) throw new ForbiddenError('Creating an environment needs a project or organization API key');
      const project = await resolveProject(rm, auth, req.params.proj_id);
      const id = newId();
      await executeOrgCommand(services, req, res, auth.organizationId, {
        type: 'CreateEnvironment',
        project: project.id,
        environment: {
          id,
          key: body.key,
          name: body.name,
          description: body.description ?? null,
          customBranchName: body.custom_branch_name ?? null,
          jwks: body.jwks ?? {},
          settings: body.settings ?? {},
        },
      });
      await executeEnvCommand(services, req, res, id, defaultTenantCommand(id));
      res.json(await rm.environments.get(id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/v2/projects/{proj_id}/envs',
      summary: 'List environments',
      tag: 'Environments',
      query: paginationSchema,
      response: environmentListSchema,
    },
    async (req, res, input) => {
      const auth = authOf(res);
      const project = await resolveProject(rm, auth, req.params.proj_id);
      if (auth.environmentId !== null) {
        res.json([await rm.environments.get(auth.environmentId)].filter(Boolean));
        return;
      }
      res.json(await listPage(rm.environments, { project_id: project.id }, input.query()));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/v2/projects/{proj_id}/envs/{env_id}',
      summary: 'Get an environment',
      tag: 'Environments',
      response: environmentSchema,
    },
    async (req, res) => {
      const auth = authOf(res);
      const project = await resolveProject(rm, auth, req.params.proj_id);
      const env = await resolveEnvironment(rm, auth, project, req.params.env_id);
      if (!env) throw new NotFoundError(`Environment '${req.params.env_id}' not found`);
      res.json(env);
    },
  );
}
