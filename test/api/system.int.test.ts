import { startTestServer, type TestServer } from '../support/embedded-server';

describe('health, readiness and the OpenAPI document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers /healthz and /readyz without a key', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', position: expect.any(Number) });
  });

  it('serves an OpenAPI 3 document generated from the request schemas', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, any>>;
    };
    expect(doc.openapi).toMatch(/^3\./);
    const create = doc.paths['/v2/facts/{proj_id}/{env_id}/resource_instances']!.post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['key', 'resource', 'tenant']));
    expect(doc.paths['/v2/schema/{proj_id}/{env_id}/resources/{resource_id}/roles/{role_id}']!.patch).toBeDefined();
    expect(doc.paths['/v2/facts/{proj_id}/{env_id}/relationship_tuples']!.get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['proj_id', 'env_id', 'subject', 'relation', 'object', 'page', 'per_page']),
    );
  });
});
