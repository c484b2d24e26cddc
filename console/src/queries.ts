import type { Query } from './api/client';

export interface Question {
  user: string;
  action: string;
  resource: { type: string; key?: string; tenant?: string };
}

/** `type:key` (an instance) or `type` (any instance of the type, in `tenant`). */
export function questionOf(user: string, action: string, resource: string, tenant: string): Question | null {
  const [type = '', ...rest] = resource.trim().split(':');
  if (!user.trim() || !action.trim() || !type) return null;
  const key = rest.join(':');
  return {
    user: user.trim(),
    action: action.trim(),
    resource: { type, ...(key ? { key } : {}), ...(tenant.trim() ? { tenant: tenant.trim() } : {}) },
  };
}

/** The audit log's filters (docs/audit.md); `type` takes several values, comma-separated here. */
export const FILTERS: Array<{ name: string; placeholder: string }> = [
  { name: 'type', placeholder: 'RoleAssigned, RelationshipTupleDeleted' },
  { name: 'user', placeholder: 'user key' },
  { name: 'resource_instance', placeholder: 'type:key' },
  { name: 'resource', placeholder: 'resource type' },
  { name: 'role', placeholder: 'role key' },
  { name: 'relation', placeholder: 'relation key' },
  { name: 'tenant', placeholder: 'tenant key' },
  { name: 'actor_id', placeholder: 'API key id' },
  { name: 'request_id', placeholder: 'X-Request-Id' },
  { name: 'correlation_id', placeholder: 'correlation id or task id' },
];
/** The filters as the API takes them: `type=A&type=B`. */
export function filterQuery(values: Record<string, string>): Query {
  const query: Query = {};
  for (const f of FILTERS) {
    const v = (values[f.name] ?? '').trim();
    if (!v) continue;
    query[f.name] = f.name === 'type' ? v.split(/[\s,]+/).filter(Boolean) : v;
  }
  return query;
}

/** The scalar fields of an event's data, ids left out: `subject=folder:docs relation=parent …`. */
export function dataSummary(data: Record<string, unknown>): string {
  return Object.entries(data)
    .filter(([k, v]) => k !== 'id' && !k.endsWith('_id') && v !== null && v !== '' && (typeof v !== 'object' || Array.isArray(v)))
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v as string | number | boolean)}`)
    .join(' ');
}
