import type { NextFunction, Request, Response } from 'express';
import { hashApiKeySecret, sameHash } from '../../shared/api-keys';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../shared/errors';
import type { EnvironmentDoc, ProjectDoc, ReadModels } from '../../shared/read-models/read-models';
import { ReadCache } from '../../shared/read-cache';
import { allows, requiredAccessLevel, type AccessLevel } from './access-levels';
import { changePosition, type ChangePositions } from './read-model-groups';
import { canonicalId } from '../../shared/ids';

/** Shared by the requests that use the same key (cached): never modified. */
export interface AuthContext {
  readonly keyId: string;
  /** The key's name, for the access log (never its secret). */
  readonly keyName: string;
  /** What the key may do (see access-levels.ts). */
  readonly accessLevel: AccessLevel;
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

export interface AuthenticateOptions {
  /** Keep known keys between requests (READ_CACHE_ENTRIES > 0). */
  cache: boolean;
  /**
   * Look the key up in the store on every request, even when its scope is
   * cached: for a process whose read-model position lags the store (a separate
   * command service polls the projection checkpoint), so that a key deleted or
   * rotated through another process is refused as soon as that process
   * acknowledged it. One indexed read by the secret's hash.
   */
  verifyEachRequest: boolean;
}

/**
 * Resolves `Authorization: Bearer <key>` to the key's scope, or answers 401,
 * then refuses (403) a request the key's access level does not allow.
 */
export function authenticate(keys: ApiKeyAuthenticator) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const auth = await keys.authenticate(req.headers.authorization ?? misplacedAuthorization(req));
    const required = requiredAccessLevel(req.method, req.path);
    if (!allows(auth.accessLevel, required)) {
      throw new ForbiddenError(`This API key has the '${auth.accessLevel}' access level; ${req.method} ${req.path} needs '${required}'`, {
        access_level: auth.accessLevel,
        required_access_level: required,
      });
    }
    res.locals.auth = auth;
    next();
  };
}

/**
 * API keys by the `Authorization` header that sends them.
 *
 * Known keys are cached by their hash while the read models do not move;
 * unknown keys are not, so guessing cannot push real keys out of the cache.
 * Where the position moves in this process as the projections commit (the
 * one-process service), the deletion or rotation of a key moves it, which
 * empties the cache before the next request: the old secret is refused at once.
 * Elsewhere `verifyEachRequest` gives the same guarantee.
 */
export class ApiKeyAuthenticator {
  private readonly known: ReadCache<AuthContext>;

  constructor(
    private readonly rm: ReadModels,
    position: () => number,
    private readonly options: AuthenticateOptions,
  ) {
    this.known = new ReadCache<AuthContext>(position, options.cache ? CACHED_KEYS : 0);
  }

  /** The key's scope; 401 when the header is missing or malformed, or the key unknown. */
  async authenticate(header: string | undefined): Promise<AuthContext> {
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError('Missing or malformed Authorization header; expected "Bearer <API key>"');
    const hash = hashApiKeySecret(match[1]!);
    let auth = this.known.get(hash);
    if (auth && this.options.verifyEachRequest) {
      const stored = await this.rm.apiKeys.findOne({ _secret_hash: hash });
      if (!stored || stored.id !== auth.keyId) auth = undefined;
    }
    if (!auth) {
      const at = this.known.positionNow();
      auth = await lookUpKey(this.rm, hash);
      this.known.set(hash, auth, at);
    }
    return auth;
  }
}

/**
 * Permit's Node SDK (2.7.6) sends `checkAllTenants` with its request config as
 * the body: no Authorization header, the key under `headers.Authorization` in
 * the JSON. Read there for that one path, only when the header is absent, so
 * that the SDK's call works unchanged; the key is checked like any other.
 */
function misplacedAuthorization(req: Request): string | undefined {
  if (req.method !== 'POST' || req.path.toLowerCase().replace(/\/+$/, '') !== '/allowed/all-tenants') return undefined;
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || !('headers' in body)) return undefined;
  const headers = body.headers;
  if (typeof headers !== 'object' || headers === null) return undefined;
  const value = (headers as Record<string, unknown>).Authorization ?? (headers as Record<string, unknown>).authorization;
  return typeof value === 'string' ? value : undefined;
}

async function lookUpKey(rm: ReadModels, hash: string): Promise<AuthContext> {
  const key = await rm.apiKeys.findOne({ _secret_hash: hash });
  if (!key || !sameHash(key._secret_hash, hash)) throw new UnauthorizedError('Invalid API key');
  return {
    keyId: key.id,
    keyName: key.name,
    // Documents projected before access levels existed carry 'admin' already; `??` covers a hand-made one.
    accessLevel: key.access_level ?? 'admin',
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
    (await rm.projects.get(canonicalId(ref)).then((p) => (p?.organization_id === auth.organizationId ? p : null)));
  if (auth.projectId !== null && project?.id !== auth.projectId) throw new ForbiddenError('This API key has no access to that project');
  if (!project) throw new NotFoundError(`Project '${ref}' not found`, { project: ref });
  return project;
}

export async function resolveEnvironment(rm: ReadModels, auth: AuthContext, project: ProjectDoc, ref: string): Promise<EnvironmentDoc> {
  const env =
    (await rm.environments.findOne({ project_id: project.id, key: ref })) ??
    (await rm.environments.get(canonicalId(ref)).then((e) => (e?.project_id === project.id ? e : null)));
  if (auth.environmentId !== null && env?.id !== auth.environmentId)
    throw new ForbiddenError('This API key has no access to that environment');
  if (!env) throw new NotFoundError(`Environment '${ref}' not found in project '${project.key}'`, { environment: ref });
  return env;
}

/** Most (key, project, environment) path resolutions kept (per read-model position, see ReadCache). */
const CACHED_SCOPES = 10_000;

/**
 * The environment a `/{proj_id}/{env_id}` path names for a key (ids or keys), kept per key and
 * path while the organisation's read models do not move. A refused resolution (403, 404) is not kept.
 */
export class EnvironmentScopes {
  private readonly resolved: ReadCache<EnvironmentDoc>;

  constructor(
    private readonly rm: ReadModels,
    position: () => number,
    cacheEnabled: boolean,
  ) {
    this.resolved = new ReadCache<EnvironmentDoc>(position, cacheEnabled ? CACHED_SCOPES : 0);
  }

  /** Shared between requests when cached: never modified. */
  resolve(auth: AuthContext, projectRef: string, environmentRef: string): Promise<EnvironmentDoc> {
    return this.resolved.through(JSON.stringify([auth.keyId, projectRef, environmentRef]), async () =>
      resolveEnvironment(this.rm, auth, await resolveProject(this.rm, auth, projectRef), environmentRef),
    );
  }
}

/** Middleware for `/:proj_id/:env_id` route groups: puts the environment in `res.locals.env`. */
export function environmentScope(scopes: EnvironmentScopes) {
  return async (req: Request, res: Response, next: NextFunction) => {
    res.locals.env = await scopes.resolve(authOf(res), String(req.params.proj_id), String(req.params.env_id));
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

/** The authenticator a service's routes use: keys cached when read caches are on, verified per request where the position lags. */
export function apiKeyAuthenticator(services: {
  readModels: ReadModels;
  freshness: ChangePositions & { readonly exact?: boolean };
  config: { READ_CACHE_ENTRIES: number };
}): ApiKeyAuthenticator {
  return new ApiKeyAuthenticator(services.readModels, changePosition(services.freshness, 'organisation'), {
    cache: services.config.READ_CACHE_ENTRIES > 0,
    verifyEachRequest: services.freshness.exact !== true,
  });
}
