import type { KeyScope } from './api/types';

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
}

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
