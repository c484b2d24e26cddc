import { startTestServer, type TestServer } from '../support/embedded-server';
import { writeSideSuite } from './support/write-side-suite';

writeSideSuite('expires_at: the write side', (options) => startTestServer(options));

// The OpenAPI document is the same whatever engine holds the read models: checked here only.
describe('expires_at: the write side in the OpenAPI document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('describes expires_at and expires_before in the OpenAPI document', async () => {
    const doc = (await server.api.get('/openapi.json')).body;
    const schemas = doc.components.schemas;
    for (const name of ['RoleAssignment', 'RelationshipTuple', 'RoleAssignmentDetailed'])
      expect(schemas[name].properties.expires_at).toBeDefined();
    const list = doc.paths['/v2/facts/{proj_id}/{env_id}/role_assignments'];
    expect(list.get.parameters.map((p: any) => p.name)).toContain('expires_before');
    const body = JSON.stringify(list.post.requestBody);
    expect(body).toContain('expires_at');
  });
});
