import { startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Parts of Permit's API the SDKs can call but this service does not serve: 501 naming the feature. */
describe('features not served answer 501 in the error shape, naming them', () => {
  let server: TestServer;
  let admin: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    admin = server.api;
  });
  afterAll(() => server.close());

  const cases: Array<[string, string, string]> = [
    ['GET', '/v2/members', 'Members'],
    ['POST', '/v2/invites', 'Invites'],
    ['GET', '/v2/auth/me', 'Elements'],
    ['POST', '/v2/auth/elements_login_as', 'Elements'],
    ['GET', '/v2/elements/default/production/config', 'Permit Elements'],
    ['GET', '/v2/projects/default/repos', 'GitOps'],
    ['GET', '/v2/pdps/default/production/configs', 'PDP configurations'],
  ];

  it.each(cases)('%s %s', async (method, path, feature) => {
    const before = await server.service.eventStore.headPosition();
    const answer = await admin.request(method, path, method === 'GET' ? undefined : {});
    expect(answer.status).toBe(501);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body).toMatchObject({
      error_code: 'UNEXPECTED_ERROR',
      reason: 'NOT_IMPLEMENTED',
      title: 'Not served',
      additional_info: { feature: expect.any(String) },
    });
    expect(answer.body.message).toContain(feature);
    expect(answer.body.message).toContain('not served');
    expect(await server.service.eventStore.headPosition()).toBe(before);
  });

  it('a path of a family not served that a route does serve takes 405 for another method, not 501 (the decision logs under /v2/pdps)', async () => {
    for (const path of ['/v2/pdps/default/production/audit_logs', '/v2/pdps/default/production/audit_logs/0']) {
      const answer = await admin.request('DELETE', path);
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, HEAD');
      expect(answer.body).toMatchObject({ reason: 'METHOD_NOT_ALLOWED' });
    }
  });

  it('still needs a valid key, and unknown paths stay 404', async () => {
    expect((await admin.withKey('permit_key_wrong').get('/v2/members')).status).toBe(401);
    expect((await admin.get('/v2/nothing-here')).status).toBe(404);
  });
});
