import type { Api } from './api/client';
import { seg } from './api/client';
import type { ApiKeyInfo, KeyScope } from './api/types';

/**
 * What the console remembers while the tab is open: the API key it signed in
 * with, that key's scope, the environment being looked at, and (for an
 * organisation or project key, which `/allowed` refuses) an environment key
 * for checks. sessionStorage only: closing the tab forgets the key.
 */
export interface Session {
  key: string;
  scope: KeyScope;
  /** Project and environment shown (ids; the API takes keys or ids). */
  project: string | null;
  env: string | null;
  /** By environment id: the key `/allowed` and `/allowed/history` are asked with (the signed-in key, when it is an environment key). */
  checkKeys: Record<string, string>;
  /** By environment id: the id of the console's own check key there (`console checks`), revoked on sign-out. */
  consoleKeys?: Record<string, string>;
}

/** The name of the one read-level key per environment the console makes for checks. */
export const CONSOLE_KEY_NAME = 'console checks';

const STORAGE_KEY = 'rebac-console.session';

export function loadSession(storage: Storage = sessionStorage): Session | null {
  const text = storage.getItem(STORAGE_KEY);
  if (!text) return null;
  try {
    const session = JSON.parse(text) as Session;
    return typeof session.key === 'string' && session.scope && session.checkKeys ? session : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session, storage: Storage = sessionStorage): void {
  storage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(storage: Storage = sessionStorage): void {
  storage.removeItem(STORAGE_KEY);
}

/** A session for a key whose scope is known: an environment key fixes the environment and checks with itself. */
export function sessionFor(key: string, scope: KeyScope): Session {
  const envKey = Boolean(scope.environment_id);
  return {
    key,
    scope,
    project: scope.project_id ?? null,
    env: scope.environment_id ?? null,
    checkKeys: envKey ? { [scope.environment_id!]: key } : {},
  };
}

/** Where the last session looked (ids only, never a key): the next sign-in opens it. localStorage, as it outlives the tab. */
const LAST_ENV_KEY = 'rebac-console.last-environment';

export function rememberEnvironment(project: string, env: string, storage: Storage = localStorage): void {
  storage.setItem(LAST_ENV_KEY, JSON.stringify({ project, env }));
}

export function lastEnvironment(storage: Storage = localStorage): { project: string; env: string } | null {
  try {
    const last = JSON.parse(storage.getItem(LAST_ENV_KEY) ?? 'null') as { project?: unknown; env?: unknown } | null;
    return last && typeof last.project === 'string' && typeof last.env === 'string' ? { project: last.project, env: last.env } : null;
  } catch {
    return null;
  }
}

/** What to open among `list`: the last one used if it is there, else the one keyed `preferred` (`production`, `default`), else the first. */
export function preferredOf<T extends { id: string; key: string }>(list: T[], last: string | null, preferred: string): T | undefined {
  return list.find((e) => e.id === last) ?? list.find((e) => e.key === preferred) ?? list[0];
}

/**
 * The console's check key for an environment: one per environment, named
 * `console checks`. An existing one (left by a session that was not signed
 * out) gets a new secret rather than a second key being made; secrets are
 * shown once, so a key cannot be reused otherwise. Needs an admin key.
 */
export async function consoleCheckKey(api: Api, project: string, env: string): Promise<{ id: string; secret: string }> {
  const listed = await api.get<{ data: ApiKeyInfo[] }>('/v2/api-key', { object_type: 'env', proj_id: project, per_page: 100 });
  const existing = listed.data.find((k) => k.environment_id === env && k.name === CONSOLE_KEY_NAME);
  if (existing) {
    const rotated = await api.post<{ id: string; secret: string }>(`/v2/api-key/${seg(existing.id)}/rotate-secret`, {});
    return { id: rotated.data.id, secret: rotated.data.secret };
  }
  const created = await api.post<{ id: string; secret: string }>('/v2/api-key', {
    object_type: 'env',
    project_id: project,
    environment_id: env,
    access_level: 'read',
    name: CONSOLE_KEY_NAME,
  });
  return { id: created.data.id, secret: created.data.secret };
}

/** Revokes the check keys this session made; the ones that could not be revoked are named. */
export async function revokeConsoleKeys(api: Api, session: Session): Promise<string[]> {
  const failed: string[] = [];
  for (const id of Object.values(session.consoleKeys ?? {})) {
    try {
      await api.delete(`/v2/api-key/${seg(id)}`);
    } catch (err) {
      // Already gone is what we wanted.
      if (!(err instanceof Error && 'status' in err && (err as { status: number }).status === 404)) failed.push(id);
    }
  }
  return failed;
}
