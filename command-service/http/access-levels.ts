import type { ApiKeyAccessLevel } from '../../shared/events/org-events';

/**
 * What an API key's access level lets it do (Permit's member roles: viewer,
 * editor, owner). One table for the whole API, applied by `authenticate`
 * before any route runs, so a route added later is covered by the default:
 *
 * - `read`: every GET (and HEAD/OPTIONS), and the PDP checks (`POST /allowed`,
 *   `/allowed/bulk`, `/allowed/all-tenants`, `/allowed_url`, `/user-permissions`, `/user-tenants`,
 *   `/authorized_users`, AuthZEN's `/access/v1/...`), which read, and running saved assertions
 *   (`POST /v2/schema/{proj}/{env}/assertions/run`).
 * - `write`: also every other write: schema (`/v2/schema/...`) and facts (`/v2/facts/...`).
 * - `admin`: also API keys (`/v2/api-key/...`, reads included, except the
 *   caller's own `/v2/api-key/scope`), and every write under `/v2/projects`
 *   (projects, environments, environment copies, which create or overwrite
 *   environments).
 *
 * Unknown paths fall to the method's default (GET: read, else write): a
 * misclassified write can only be refused to a key that could do it, never
 * allowed to one that could not.
 */
export type AccessLevel = ApiKeyAccessLevel;

const RANK: Record<AccessLevel, number> = { read: 0, write: 1, admin: 2 };

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The PDP endpoints: POSTs that only read (Permit's SDK sends `permit.check` and friends here). */
const CHECK_PATHS = new Set([
  '/allowed',
  '/allowed/bulk',
  '/allowed/history',
  '/allowed/all-tenants',
  '/allowed_url',
  '/user-permissions',
  '/user-tenants',
  '/authorized_users',
  // AuthZEN evaluations and searches
  '/access/v1/evaluation',
  '/access/v1/evaluations',
  '/access/v1/search/subject',
  '/access/v1/search/resource',
  '/access/v1/search/action',
]);

const ASSERTIONS_RUN = /^\/v2\/schema\/[^/]+\/[^/]+\/assertions\/run$/;

/** The access level a request needs. `path` is the URL path without the query string. */
export function requiredAccessLevel(method: string, path: string): AccessLevel {
  // Express routes case-insensitively and ignores a trailing slash: classify the path it will route.
  const normalised = path.toLowerCase().replace(/\/+$/, '') || '/';
  if (normalised === '/v2/api-key/scope') return 'read';
  if (normalised === '/v2/api-key' || normalised.startsWith('/v2/api-key/')) return 'admin';
  if (READ_METHODS.has(method.toUpperCase())) return 'read';
  if (CHECK_PATHS.has(normalised)) return 'read';
  // Running saved assertions only checks (docs/assertions.md): what a CI job's read key may do.
  if (ASSERTIONS_RUN.test(normalised)) return 'read';
  if (normalised === '/v2/projects' || normalised.startsWith('/v2/projects/')) return 'admin';
  return 'write';
}

export function allows(held: AccessLevel, required: AccessLevel): boolean {
  return RANK[held] >= RANK[required];
}
