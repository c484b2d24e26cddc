import type { Express } from 'express';
import { startTestServer, type TestServer } from '../support/embedded-server';

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
const SYSTEM_ENDPOINTS = ['GET /healthz', 'GET /openapi.json', 'GET /readyz'];

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
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('/openapi.json documents exactly the routes the app serves', async () => {
    // The express app is the HTTP server's request listener.
    const app = server.service.server.listeners('request')[0] as Express & { router: RouteListing };
    const served = servedOperations(app.router);
    expect(served).toEqual(expect.arrayContaining(SYSTEM_ENDPOINTS));

    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(served.filter((op) => !SYSTEM_ENDPOINTS.includes(op)).sort());
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
});
