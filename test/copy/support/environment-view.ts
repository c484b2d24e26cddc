import type { ApiClient } from '../../support/embedded-server';

/**
 * Everything the read models say about one environment, through the HTTP API,
 * without what must differ between a source and its copy (ids, owners,
 * timestamps). Two environments with equal views answer every query alike.
 */
export interface EnvironmentView {
  resources: unknown[];
  roles: unknown[];
  relations: unknown[];
  topLevelRoles: unknown[];
  tenants: unknown[];
  users: unknown[];
  instances: unknown[];
  assignments: unknown[];
  tuples: unknown[];
}

const DROPPED = /^(id|organization_id|project_id|environment_id|created_at|updated_at|last_action_at)$|_id$/;

export function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !DROPPED.test(k))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, normalise(v)]),
    );
  }
  return value;
}

async function listAll(api: ApiClient, path: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const r = await api.get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&per_page=100`);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    const items: any[] = Array.isArray(r.body) ? r.body : r.body.data;
    out.push(...items);
    if (items.length < 100) return out;
  }
}

export async function environmentView(api: ApiClient, env: string, project = 'default'): Promise<EnvironmentView> {
  const schema = `/v2/schema/${project}/${env}`;
  const facts = `/v2/facts/${project}/${env}`;
  const resources = await listAll(api, `${schema}/resources`);
  const roles: unknown[] = [];
  const relations: unknown[] = [];
  for (const r of resources) {
    roles.push(...(await listAll(api, `${schema}/resources/${r.key}/roles`)));
    relations.push(...(await listAll(api, `${schema}/resources/${r.key}/relations`)));
  }
  return normalise({
    // A resource's `roles` repeat its role documents, which `roles` holds (and compares) already.
    resources: resources.map(({ roles: _roles, ...resource }) => resource),
    roles,
    relations,
    topLevelRoles: await listAll(api, `${schema}/roles`),
    tenants: await listAll(api, `${facts}/tenants`),
    users: await listAll(api, `${facts}/users`),
    instances: await listAll(api, `${facts}/resource_instances`),
    assignments: await listAll(api, `${facts}/role_assignments`),
    tuples: await listAll(api, `${facts}/relationship_tuples`),
  }) as EnvironmentView;
}

export const policyOf = (view: EnvironmentView) => ({
  resources: view.resources,
  roles: view.roles,
  relations: view.relations,
  topLevelRoles: view.topLevelRoles,
});
