import { z } from 'zod';
import { generateApiKeySecret, hashApiKeySecret } from '../../shared/api-keys';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { ApiKeyDoc, ReadModels } from '../../shared/read-models/read-models';
import { authOf, resolveEnvironment, resolveProject, type AuthContext } from '../http/auth';
import { present } from '../http/present';
import { MAX_PER_PAGE, queryInteger, queryPage } from '../http/validation';
import { executeOrgCommand } from '../http/services';
import { apiKeyCreatedSchema, apiKeyPageSchema, apiKeySchema, apiKeyScopeSchema } from '../http/responses';
import { scopeSaid } from './api-key-scope';
import { route } from './route';
import type { RouteContext } from './route-context';
import { canonicalId } from '../../shared/ids';

export const apiKeyCreateSchema = z.object({
  organization_id: z.string().optional(),
  project_id: z.string().optional(),
  environment_id: z.string().optional(),
  object_type: z.enum(['org', 'project', 'env']).optional(),
  access_level: z.enum(['admin', 'write', 'read']).optional(),
  owner_type: z.enum(['pdp_config', 'member', 'elements']).optional(),
  name: z.string().optional(),
});

export const apiKeyListSchema = z.object({
  object_type: z.enum(['org', 'project', 'env']).optional(),
  /** A project (key or id): its project and environment keys. */
  proj_id: z.string().optional(),
  page: queryPage(),
  per_page: queryInteger(1, MAX_PER_PAGE, 30),
});

/** A key as the API returns it: never the secret's hash; the secret only where the caller passes it (creation, rotation). */
const presentKey = (doc: ApiKeyDoc, secret?: string) => ({ ...present(doc), ...(secret === undefined ? {} : { secret }) });

/** Keys inside the caller's scope: an organisation key sees them all, a project key its project's, an environment key its environment's. */
function visibleTo(auth: AuthContext, key: ApiKeyDoc): boolean {
  return (
    key.organization_id === auth.organizationId &&
    (auth.projectId === null || key.project_id === auth.projectId) &&
    (auth.environmentId === null || key.environment_id === auth.environmentId)
  );
}

/** Oldest first (creation time, then id): a stable order for pages. */
const byAge = (a: ApiKeyDoc, b: ApiKeyDoc) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

/**
 * The organisation's keys. An organisation holds few keys (tens, not
 * millions), so they are read with one query on the organisation and filtered
 * here: the collection's declared fields stay as they are in existing stores.
 */
async function keysOf(rm: ReadModels, auth: AuthContext): Promise<ApiKeyDoc[]> {
  return (await rm.apiKeys.find({ organization_id: auth.organizationId })).filter((k) => visibleTo(auth, k)).sort(byAge);
}

/** A key the caller may see, or 404 (also for another scope's key: ids are not an existence oracle). */
async function visibleKey(rm: ReadModels, auth: AuthContext, id: string): Promise<ApiKeyDoc> {
  const key = await rm.apiKeys.get(canonicalId(id));
  if (!key || !visibleTo(auth, key)) throw new NotFoundError(`API key '${id}' not found`, { api_key_id: id });
  return key;
}

/**
 * Permit's API key endpoints. All but `/scope` need an admin key (access-levels.ts).
 * Secrets are stored as sha256 only, so a secret is returned when it is made
 * (creation, rotation) and never again.
 */
export function apiKeyRoutes(context: RouteContext): void {
  const rm = context.services.readModels;
  const { services } = context;

  route(
    context,
    {
      method: 'get',
      path: '/v2/api-key/scope',
      summary: "The calling key's organisation, project and environment",
      tag: 'API keys',
      response: apiKeyScopeSchema,
    },
    (_req, res) => {
      const auth = authOf(res);
      res.json({
        organization_id: auth.organizationId,
        ...(auth.projectId ? { project_id: auth.projectId } : {}),
        ...(auth.environmentId ? { environment_id: auth.environmentId } : {}),
      });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/v2/api-key',
      summary: 'Create an API key (organisation, project or environment scope; admin, write or read); the secret is returned once',
      tag: 'API keys',
      body: scopeSaid(apiKeyCreateSchema),
      response: apiKeyCreatedSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const auth = authOf(res);
      if (body.organization_id && body.organization_id !== auth.organizationId)
        throw new ForbiddenError('This API key has no access to that organization');
      const project = body.project_id ? await resolveProject(rm, auth, body.project_id) : null;
      const env = project && body.environment_id ? await resolveEnvironment(rm, auth, project, body.environment_id) : null;
      const level = body.object_type === 'org' || !project ? 'organization' : env ? 'environment' : 'project';
      // A key can only mint keys at most as wide as itself.
      if ((level === 'organization' && auth.projectId !== null) || (level === 'project' && auth.environmentId !== null)) {
        throw new ForbiddenError('An API key cannot create a key with a wider scope than its own');
      }
      const secret = generateApiKeySecret();
      const id = newId();
      await executeOrgCommand(services, req, res, auth.organizationId, {
        type: 'CreateApiKey',
        id,
        name: body.name ?? '',
        secretHash: hashApiKeySecret(secret),
        scope: { level, projectId: project?.id ?? null, environmentId: env?.id ?? null },
        accessLevel: body.access_level ?? 'admin',
      });
      res.json(presentKey((await rm.apiKeys.get(id))!, secret));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/v2/api-key',
      summary: "List the API keys within the calling key's scope (never their secrets)",
      tag: 'API keys',
      query: apiKeyListSchema,
      response: apiKeyPageSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const auth = authOf(res);
      const projectId = query.proj_id === undefined ? null : (await resolveProject(rm, auth, query.proj_id)).id;
      const keys = (await keysOf(rm, auth)).filter(
        (k) =>
          (query.object_type === undefined || k.object_type === query.object_type) && (projectId === null || k.project_id === projectId),
      );
      const from = (query.page - 1) * query.per_page;
      res.json({
        data: keys.slice(from, from + query.per_page).map((k) => presentKey(k)),
        total_count: keys.length,
        page_count: Math.ceil(keys.length / query.per_page),
      });
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/v2/api-key/{api_key_id}',
      summary: 'Get an API key (never its secret)',
      tag: 'API keys',
      response: apiKeySchema,
    },
    async (req, res) => {
      res.json(presentKey(await visibleKey(rm, authOf(res), req.params.api_key_id)));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/v2/api-key/{api_key_id}',
      summary: 'Delete (revoke) an API key: its secret is refused from the answer on, in every process',
      tag: 'API keys',
      status: 204,
    },
    async (req, res) => {
      const auth = authOf(res);
      const key = await visibleKey(rm, auth, req.params.api_key_id);
      if (key.object_type === 'org' && key.access_level === 'admin') {
        // Checked on the read models, not in the decider: two concurrent deletes of the last two such keys could
        // both pass. The bootstrap makes one only on an empty store, so losing the last one would lock the organisation out.
        const admins = (await rm.apiKeys.find({ organization_id: auth.organizationId })).filter(
          (k) => k.object_type === 'org' && k.access_level === 'admin',
        );
        if (admins.length <= 1)
          throw new InvalidRequestError("The organization's last admin API key cannot be deleted; create another first");
      }
      await executeOrgCommand(services, req, res, auth.organizationId, { type: 'DeleteApiKey', id: key.id });
      res.status(204).end();
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/v2/api-key/{api_key_id}/rotate-secret',
      summary: 'Give an API key a new secret (returned once); the old one is refused from the answer on',
      tag: 'API keys',
      response: apiKeyCreatedSchema,
    },
    async (req, res) => {
      const auth = authOf(res);
      const key = await visibleKey(rm, auth, req.params.api_key_id);
      const secret = generateApiKeySecret();
      await executeOrgCommand(services, req, res, auth.organizationId, {
        type: 'RotateApiKeySecret',
        id: key.id,
        secretHash: hashApiKeySecret(secret),
      });
      res.json(presentKey((await rm.apiKeys.get(key.id)) ?? key, secret));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/v2/api-key/{proj_id}/{env_id}',
      summary:
        "The environment's API key (its oldest environment-scoped admin key, else its oldest environment key); 404 if it has none (none is created). Without the secret: only its hash is stored",
      tag: 'API keys',
      response: apiKeySchema,
    },
    async (req, res) => {
      const auth = authOf(res);
      const project = await resolveProject(rm, auth, req.params.proj_id);
      const env = await resolveEnvironment(rm, auth, project, req.params.env_id);
      const keys = (await keysOf(rm, auth)).filter((k) => k.environment_id === env.id);
      const key = keys.find((k) => k.access_level === 'admin') ?? keys[0];
      if (!key)
        throw new NotFoundError(`Environment '${env.key}' has no API key; create one with POST /v2/api-key`, { environment: env.key });
      res.json(presentKey(key));
    },
  );
}
