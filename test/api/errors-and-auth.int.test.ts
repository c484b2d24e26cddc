import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

const errorShape = {
  id: expect.any(String),
  error_code: expect.any(String),
  title: expect.any(String),
  message: expect.any(String),
  support_link: expect.any(String),
};

describe('API rules and errors', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ env: { MAX_BODY_BYTES: '4096', READ_YOUR_WRITES_TIMEOUT_MS: '1000' } });
    api = await server.api.environmentClient();
    await api.post(`${SCHEMA}/resources`, { key: 'folder', name: 'Folder', actions: { read: {} } });
  });
  afterAll(() => server.close());

  /** Every refused request must leave the log as it was. */
  async function expectNothingAppended(action: () => Promise<unknown>) {
    const before = await server.service.eventStore.headPosition();
    await action();
    expect(await server.service.eventStore.headPosition()).toBe(before);
  }

  it('401 without a key and with a wrong key, in the error shape', async () => {
    const anonymous = await fetch(`${server.url}/v2/projects`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ ...errorShape, error_code: 'UNAUTHORIZED' });
    const wrong = await api.withKey('permit_key_not-a-real-key').get('/v2/projects');
    expect(wrong.status).toBe(401);
  });

  it('accepts the Authorization header in any letter case', async () => {
    const response = await fetch(`${server.url}/v2/api-key/scope`, { headers: { AUTHORIZATION: `bearer ${api.key}` } });
    expect(response.status).toBe(200);
  });

  it('403 when an environment key is used on another environment', async () => {
    const created = await server.api.post('/v2/projects/default/envs', { key: 'staging', name: 'Staging' });
    expect(created.status).toBe(200);
    await expectNothingAppended(async () => {
      const response = await api.post('/v2/schema/default/staging/resources', { key: 'x', name: 'X', actions: {} });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ ...errorShape, error_code: 'FORBIDDEN_ACCESS' });
    });
    expect((await api.post('/v2/projects/default/envs', { key: 'dev', name: 'Dev' })).status).toBe(403);
  });

  it('every path id accepts the key or the UUID', async () => {
    const scope = await api.get('/v2/api-key/scope');
    const byIds = await api.get(`/v2/schema/${scope.body.project_id}/${scope.body.environment_id}/resources/folder`);
    expect(byIds.status).toBe(200);
    const byResourceId = await api.get(`${SCHEMA}/resources/${byIds.body.id}`);
    expect(byResourceId.body.key).toBe('folder');
  });

  it('422 with {detail: [{loc, msg, type}]} for an invalid key, body or query; nothing appended', async () => {
    await expectNothingAppended(async () => {
      const badKey = await api.post(`${SCHEMA}/resources`, { key: 'has space', name: 'X', actions: {} });
      expect(badKey.status).toBe(422);
      expect(badKey.body.detail[0]).toEqual({ loc: ['body', 'key'], msg: expect.any(String), type: expect.any(String) });
      const missing = await api.post(`${FACTS}/resource_instances`, { key: 'k' });
      expect(missing.status).toBe(422);
      expect(missing.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(
        expect.arrayContaining(['body.resource', 'body.tenant']),
      );
      const notJson = await api.request('POST', `${FACTS}/tenants`, '{not json');
      expect(notJson.status).toBe(422);
      const badQuery = await api.get(`${FACTS}/tenants?per_page=1000`);
      expect(badQuery.status).toBe(422);
      expect(badQuery.body.detail[0].loc).toEqual(['query', 'per_page']);
    });
  });

  it('409 DUPLICATE_ENTITY on a duplicate key; nothing appended', async () => {
    await expectNothingAppended(async () => {
      const response = await api.post(`${SCHEMA}/resources`, { key: 'folder', name: 'Again', actions: {} });
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ ...errorShape, error_code: 'DUPLICATE_ENTITY' });
    });
  });

  it('404 NOT_FOUND naming the missing object; nothing appended', async () => {
    await expectNothingAppended(async () => {
      const response = await api.post(`${FACTS}/resource_instances`, { key: 'x', resource: 'folder', tenant: 'ghost' });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ ...errorShape, error_code: 'NOT_FOUND' });
      expect(response.body.message).toContain("'ghost'");
      expect((await api.get(`${SCHEMA}/resources/nope`)).status).toBe(404);
      expect((await api.get('/v2/no/such/route')).status).toBe(404);
    });
  });

  it('400 naming the mismatch for a tuple across tenants; nothing appended', async () => {
    await api.post(`${SCHEMA}/resources`, { key: 'file', name: 'File', actions: { read: {} } });
    await api.post(`${SCHEMA}/resources/file/relations`, { key: 'parent', name: 'Parent', subject_resource: 'folder' });
    await api.post(`${FACTS}/tenants`, { key: 't1', name: 'T1' });
    await api.post(`${FACTS}/tenants`, { key: 't2', name: 'T2' });
    await api.post(`${FACTS}/resource_instances`, { key: 'f', resource: 'folder', tenant: 't1' });
    await api.post(`${FACTS}/resource_instances`, { key: 'd', resource: 'file', tenant: 't2' });
    await expectNothingAppended(async () => {
      const response = await api.post(`${FACTS}/relationship_tuples`, { subject: 'folder:f', relation: 'parent', object: 'file:d' });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/tenant 't1'.*tenant 't2'/);
    });
  });

  it('413 for a body over the limit, in the error shape; nothing appended', async () => {
    await expectNothingAppended(async () => {
      const response = await api.post(`${FACTS}/tenants`, { key: 'big', name: 'x'.repeat(10_000) });
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ ...errorShape, error_code: 'INVALID_INPUT', reason: 'PAYLOAD_TOO_LARGE' });
    });
  });

  it('never sends a stack trace', async () => {
    const response = await api.post(`${SCHEMA}/resources`, { key: 'folder', name: 'Again', actions: {} });
    expect(JSON.stringify(response.body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('writes return their log position, and reads can ask to be at least that fresh', async () => {
    const created = await api.post(`${FACTS}/tenants`, { key: 'fresh', name: 'Fresh' });
    const position = Number(created.headers.get('x-event-position'));
    expect(position).toBeGreaterThan(0);
    const read = await api.get(`${FACTS}/tenants/fresh`, { 'X-Min-Event-Position': String(position) });
    expect(read.status).toBe(200);
    // A position no write has reached cannot be waited for: 400 at once, naming the log's head.
    const future = await api.get(`${FACTS}/tenants/fresh`, { 'X-Min-Event-Position': String(position + 1_000_000) });
    expect(future.status).toBe(400);
    expect(future.body.additional_info).toMatchObject({ position: position + 1_000_000, head: expect.any(Number) });
  });

  it('echoes x-request-id and records it with the actor in the event metadata', async () => {
    const response = await fetch(`${server.url}${FACTS}/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json', 'x-request-id': 'req-abc' },
      body: JSON.stringify({ key: 'audited', name: 'Audited' }),
    });
    expect(response.headers.get('x-request-id')).toBe('req-abc');
    const head = await server.service.eventStore.headPosition();
    const [event] = await server.service.eventStore.readAll(head - 1, 1);
    expect(event!.metadata).toMatchObject({ requestId: 'req-abc', actor: expect.any(String), schemaVersion: 1 });
  });
});
