import type { NextFunction, Request, Response } from 'express';
import { hashApiKeySecret, sameHash } from '../../shared/api-keys';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../shared/errors';
import type { EnvironmentDoc, ProjectDoc, ReadModels } from '../../shared/read-models/read-models';
import { ReadCache } from '../../shared/read-cache';

/** Shared by the requests that use the same key (cached): never modified. */
export interface AuthContext {
  readonly keyId: string;
  readonly organizationId: string;
  /** null for an organisation key */
  readonly projectId: string | null;
  /** null for an organisation or project key */
  readonly environmentId: string | null;
  /** An environment key's environment, as it was when the key was looked up (null if it is gone). */
  readonly environment?: Readonly<EnvironmentDoc> | null;
}

/** Most API keys whose scope is kept between requests (per read-model position, see ReadCache). */
const CACHED_KEYS = 10_000;

/**
 * Resolves `Authorization: Bearer <key>` to the key's scope, or answers 401.
 * Known keys are cached by their hash while the read models do not move (a
 * revoked key's deletion moves them); unknown keys are not, so guessing cannot
 * push real keys out of the cache.
 */
export function authenticate(rm: ReadModels, position: () => number, cacheEnabled: boolean) {
  const known = new ReadCache<AuthContext>(position, cacheEnabled ? CACHED_KEYS : 0);
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError('Missing or malformed Authorization header; expected "Bearer <API key>"');
    const hash = hashApiKeySecret(match[1]!);
    res.locals.auth = await known.through(hash, () => lookUpKey(rm, hash));
    next();
  };
}

async function lookUpKey(rm: ReadModels, hash: string): Promise<AuthContext> {
  const key = await rm.apiKeys.findOne({ _secret_hash: hash });
  if (!key || !sameHash(key._secret_hash, hash)) throw new UnauthorizedError('Invalid API key');
  return {
    keyId: key.id,
    organizationId: key.organization_id,
    projectId: key.project_id,
    environmentId: key.environment_id,
    environment: key.environment_id === null ? null : await rm.environments.get(key.environment_id),
  };
}

export const authOf = (res: Response): AuthContext => res.locals.auth as AuthContext;

/**
 * Finds a project of the key's organisation by key or id. A narrower key asking
 * for another project gets 403 whether or not it exists (no existence oracle).
 */
export async function resolveProject(rm: ReadModels, auth: AuthContext, ref: string): Promise<ProjectDoc> {
  const project =
    (await rm.projects.findOne({ organization_id: auth.organizationId, key: ref })) ??
    (await rm.projects.get(ref).then((p) => (p?.organization_id === auth.organizationId ? p : null)));
  if (auth.projectId !== null && project?.id !== auth.projectId) throw new ForbiddenError('This API key has no access to that project');
  if (!project) throw new NotFoundError(`Project '${ref}' not found`, { project: ref });
  return project;
}

export async function resolveEnvironment(rm: ReadModels, auth: AuthContext, project: ProjectDoc, ref: string): Promise<EnvironmentDoc> {
  const env =
    (await rm.environments.findOne({ project_id: project.id, key: ref })) ??
    (await rm.environments.get(ref).then((e) => (e?.project_id === project.id ? e : null)));
  if (auth.environmentId !== null && env?.id !== auth.environmentId)
    throw new ForbiddenError('This API key has no access to that environment');
  if (!env) throw new NotFoundError(`Environment '${ref}' not found in project '${project.key}'`, { environment: ref });
  return env;
}

/** Most (key, project, environment) path resolutions kept (per read-model position, see ReadCache). */
const CACHED_SCOPES = 10_000;

/**
 * Middleware for `/:proj_id/:env_id` route groups: puts the environment in
 * `res.locals.env` (shared between requests when cached: never modified).
 * A refused resolution (403, 404) is not cached.
 */
export function environmentScope(rm: ReadModels, position: () => number, cacheEnabled: boolean) {
  const resolved = new ReadCache<EnvironmentDoc>(position, cacheEnabled ? CACHED_SCOPES : 0);
  return async (req: Request, res: Response, next: NextFunction) => {
    const auth = authOf(res);
    const projectRef = String(req.params.proj_id);
    const environmentRef = String(req.params.env_id);
    res.locals.env = await resolved.through(JSON.stringify([auth.keyId, projectRef, environmentRef]), async () =>
      resolveEnvironment(rm, auth, await resolveProject(rm, auth, projectRef), environmentRef),
    );
    next();
  };
}

export const envOf = (res: Response): EnvironmentDoc => res.locals.env as EnvironmentDoc;

/** The environment an API key is bound to, for the PDP endpoints (`/allowed`), which have no path ids. */
export async function keyEnvironment(rm: ReadModels, auth: AuthContext): Promise<EnvironmentDoc> {
  if (auth.environmentId === null) throw new ForbiddenError('Permission checks need an environment-scoped API key');
  const env = auth.environment !== undefined ? auth.environment : await rm.environments.get(auth.environmentId);
  if (!env) throw new NotFoundError(`Environment '${auth.environmentId}' not found`);
  return env;
}
