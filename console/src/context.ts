import type { Api } from './api/client';
import { seg } from './api/client';
import type { Session } from './session';

/** What every page gets: the API client, the session, and the environment's base paths. */
export interface Ctx {
  api: Api;
  session: Session;
  proj: string;
  env: string;
  update: (session: Session) => void;
  /** Moves to another page (`#/timeline?request_id=…`). */
  go: (hash: string) => void;
}

export const schemaPath = (c: Pick<Ctx, 'proj' | 'env'>) => `/v2/schema/${seg(c.proj)}/${seg(c.env)}`;
export const factsPath = (c: Pick<Ctx, 'proj' | 'env'>) => `/v2/facts/${seg(c.proj)}/${seg(c.env)}`;
export const eventsPath = (c: Pick<Ctx, 'proj' | 'env'>) => `/v2/events/${seg(c.proj)}/${seg(c.env)}`;

/** The hash route: `#/check?user=alice` → `{page: 'check', params}`. */
export function parseRoute(hash: string): { page: string; params: URLSearchParams } {
  const text = hash.replace(/^#\/?/, '');
  const [page = '', query = ''] = text.split('?', 2) as [string?, string?];
  return { page: page || 'model', params: new URLSearchParams(query) };
}
