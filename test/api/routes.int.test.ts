import type { Express } from 'express';
import { FACTS, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** An entry of express's own route listing (router 2.3 `listRoutes()`). */
interface ListedRoute {
  path: string | RegExp;
  methods?: string[];
  router?: RouteListing;
}
interface RouteListing {
  listRoutes(): ListedRoute[];
}

/** Served without a key and not part of the API the document describes. */
const SYSTEM_ENDPOINTS = [
  // The root leads a browser to the console (command-service/app.ts); it is not part of the API.
  'GET /',
  'GET /healthz',
  'GET /healthy',
  'GET /metrics',
  'GET /openapi.json',
  'GET /readyz',
  'GET /healthchecks/opa/ready',
];

/** `METHOD /path/{param}` for every route express serves, through its mounted routers. */
function servedOperations(router: RouteListing, prefix = ''): string[] {
  return router.listRoutes().flatMap((listed) => {
    if (typeof listed.path !== 'string') throw new Error(`a route at a RegExp (${String(listed.path)}) cannot be documented`);
    const path = `${prefix}/${listed.path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
    if (listed.router) return servedOperations(listed.router, path);
    const methods = listed.methods ?? [];
    // Express adds HEAD to every GET route by itself.
    return methods.filter((m) => !(m === 'HEAD' && methods.includes('GET'))).map((m) => `${m} ${path.replace(/:(\w+)/g, '{$1}')}`);
  });
}

describe('declared routes', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
  });
  afterAll(() => server.close());

  it('/openapi.json documents exactly the routes the app serves', async () => {
    // The express app is the HTTP server's request listener.
    const app = server.service.app as Express & { router: RouteListing };
    const served = servedOperations(app.router);
    expect(served).toEqual(expect.arrayContaining(SYSTEM_ENDPOINTS));

    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    // The PDP's `/facts/…` is served by the `/v2/facts/{proj_id}/{env_id}/…` routes (command-service/http/pdp-facts.ts).
    const facts = /^(\w+) \/v2\/facts\/\{proj_id\}\/\{env_id\}\//;
    const viaPdp = served.filter((op) => facts.test(op)).map((op) => op.replace(facts, '$1 /facts/'));
    expect(viaPdp).toContain('POST /facts/users');
    const api = served.filter((op) => !SYSTEM_ENDPOINTS.includes(op));
    expect(documented.sort()).toEqual([...api, ...viaPdp].sort());
    // Every route group and feature is in it (so the comparison is not between two empty lists).
    expect(documented).toEqual(
      expect.arrayContaining([
        'POST /v2/projects/{proj_id}/envs',
        'PATCH /v2/schema/{proj_id}/{env_id}/resources/{resource_id}/roles/{role_id}',
        'DELETE /v2/facts/{proj_id}/{env_id}/relationship_tuples',
        'PUT /v2/facts/{proj_id}/{env_id}/bulk/resource_instances',
        'POST /allowed/bulk',
        'GET /v2/projects/{proj_id}/envs/{env_id}/copy/async/{task_id}/result',
      ]),
    );
  });

  it('405 METHOD_NOT_ALLOWED with Allow for a known path asked with another method', async () => {
    const list = await api.request('PUT', `${FACTS}/tenants`);
    expect(list.status).toBe(405);
    expect(list.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(list.body).toEqual({
      id: expect.any(String),
      error_code: 'INVALID_INPUT',
      reason: 'METHOD_NOT_ALLOWED',
      title: 'Method not allowed',
      message: `PUT is not allowed on ${FACTS}/tenants; it takes GET, HEAD, POST`,
      support_link: expect.any(String),
    });
    const one = await api.request('POST', `${FACTS}/tenants/acme`, {});
    expect(one.status).toBe(405);
    expect(one.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    const check = await api.request('GET', '/allowed');
    expect(check.status).toBe(405);
    expect(check.headers.get('allow')).toBe('POST');
    // `/resource_instances/detailed` is its own path (GET), though `{instance_id}` (PATCH, DELETE) would match it too.
    const detailed = await api.request('PATCH', `${FACTS}/resource_instances/detailed?page=1`, {});
    expect(detailed.status).toBe(405);
    expect(detailed.headers.get('allow')).toBe('GET, HEAD');
  });

  it('OPTIONS answers Allow from the most specific declared template, not every route the path matches', async () => {
    const options = async (path: string) => (await server.api.request('OPTIONS', path)).headers.get('allow');
    // `/v2/api-key/scope` also matches `/v2/api-key/{api_key_id}` (GET, DELETE): it takes GET only.
    expect(await options('/v2/api-key/scope')).toBe('GET, HEAD');
    // `/v2/api-key/{id}/rotate-secret` also matches `/v2/api-key/{proj_id}/{env_id}` (GET).
    expect(await options('/v2/api-key/0b5a3f4e-0000-4000-8000-000000000000/rotate-secret')).toBe('POST');
    expect(await options(`${FACTS}/tenants`)).toBe('GET, HEAD, POST');
  });

  it('a path no route declares is still 404, and the key and the environment are checked first', async () => {
    const unknown = await api.request('PUT', `${FACTS}/no_such_things`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error_code).toBe('NOT_FOUND');
    expect((await api.withKey('permit_key_not-a-real-key').request('PUT', `${FACTS}/tenants`)).status).toBe(401);
    expect((await api.request('PUT', '/v2/facts/default/staging/tenants')).status).toBe(403);
  });
});
