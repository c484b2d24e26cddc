import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * Never accept and drop: a body field or query parameter a route does not
 * declare is refused with 422 naming it (as Permit's API refuses extra
 * fields), and the request changes nothing.
 */
describe('input a route does not take is refused by name', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
    await api.post(`${SCHEMA}/resources`, { key: 'folder', name: 'Folder', actions: { read: {} } });
  });
  afterAll(() => server.close());

  const extra = (where: 'body' | 'query', name: string) => ({
    detail: [{ loc: [where, name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
  });

  it('a body field the route does not declare: 422 naming it, nothing appended', async () => {
    const before = await server.service.eventStore.headPosition();
    const response = await api.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme', colour: 'blue' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual(extra('body', 'colour'));
    expect(await server.service.eventStore.headPosition()).toBe(before);
    expect((await api.get(`${FACTS}/tenants/acme`)).status).toBe(404);
  });

  it('a query parameter a list does not declare: 422 naming it', async () => {
    const response = await api.get(`${SCHEMA}/resources?sort=key`);
    expect(response.status).toBe(422);
    expect(response.body).toEqual(extra('query', 'sort'));
  });

  it('a query parameter on a route whose handler reads only part of its query: still refused', async () => {
    const response = await api.get(`${SCHEMA}/resources/folder?fields=key`);
    expect(response.status).toBe(422);
    expect(response.body).toEqual(extra('query', 'fields'));
    const head = await server.service.eventStore.headPosition();
    expect((await api.get(`${SCHEMA}/resources/folder?as_of=${head}`)).status).toBe(200);
  });

  it('a query parameter on a route that declares none: refused, nothing appended', async () => {
    const before = await server.service.eventStore.headPosition();
    const response = await api.post(`${FACTS}/tenants?dry_run=true`, { key: 'globex', name: 'Globex' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual(extra('query', 'dry_run'));
    expect(await server.service.eventStore.headPosition()).toBe(before);
  });

  it('the OpenAPI document says bodies are closed', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const body = doc.paths['/v2/facts/{proj_id}/{env_id}/tenants'].post.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
  });
});
