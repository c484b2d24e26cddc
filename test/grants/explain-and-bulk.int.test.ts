import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from './support/scenario';

describe('/allowed explain option and /allowed/bulk', () => {
  let server: TestServer;
  let s: Scenario;
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'explain');
    await documentSchema(s);
    await s.tenantRole('reader', ['document:read']);
    await s.instance('account:a', 'acme');
    await s.instance('folder:top', 'acme');
    await s.instance('folder:sub', 'acme');
    await s.instance('document:d', 'acme');
    await s.tuple('account:a', 'account', 'folder:top');
    await s.tuple('folder:top', 'parent', 'folder:sub');
    await s.tuple('folder:sub', 'parent', 'document:d');
    await s.assign('alice', 'admin', 'account:a');
    await s.assign('bob', 'viewer', 'document:d');
    await s.assignTenantRole('dave', 'reader', 'acme');
  });
  afterAll(() => server.close());

  it('explains an allow with the chain from the assignment through each tuple and rule', async () => {
    const r = await s.api.post('/allowed?explain=true', { user: 'alice', action: 'write', resource: 'document:d' });
    expect(r.status).toBe(200);
    expect(r.body.allow).toBe(true);
    const e = r.body.explanation;
    expect(e.decision).toBe('allow');
    expect(e.resource).toEqual({ type: 'document', key: 'd', tenant: 'acme', instance_found: true });
    expect(e.granted_by).toHaveLength(1);
    expect(e.granted_by[0]).toMatchObject({
      kind: 'resource_role',
      role: 'editor',
      resource_instance: 'document:d',
      permissions: ['read', 'write'],
    });
    expect(e.granted_by[0].chain).toEqual([
      {
        step: 'role_assignment',
        assignment_id: expect.any(String),
        user: 'alice',
        role: 'admin',
        resource_instance: 'account:a',
        tenant: 'acme',
      },
      {
        step: 'role_derivation',
        role: 'editor',
        resource_instance: 'folder:top',
        from: { role: 'admin', resource_instance: 'account:a' },
        tuple: { subject: 'account:a', relation: 'account', object: 'folder:top' },
        rule: { role: 'admin', on_resource: 'account', linked_by_relation: 'account' },
      },
      {
        step: 'role_derivation',
        role: 'editor',
        resource_instance: 'folder:sub',
        from: { role: 'editor', resource_instance: 'folder:top' },
        tuple: { subject: 'folder:top', relation: 'parent', object: 'folder:sub' },
        rule: { role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' },
      },
      {
        step: 'role_derivation',
        role: 'editor',
        resource_instance: 'document:d',
        from: { role: 'editor', resource_instance: 'folder:sub' },
        tuple: { subject: 'folder:sub', relation: 'parent', object: 'document:d' },
        rule: { role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' },
      },
    ]);
    const assignments = await s.api.get(`${s.facts}/role_assignments?user=alice`);
    expect(e.granted_by[0].chain[0].assignment_id).toBe(assignments.body[0].id);
    expect(e.summary).toMatch(/derived from role 'admin' on 'account:a' in 3 step/);
  });

  it('explains a direct assignment and a tenant role', async () => {
    const direct = await s.api.post('/allowed', { user: 'bob', action: 'read', resource: 'document:d', explain: true });
    expect(direct.body.explanation.granted_by[0].chain).toEqual([
      expect.objectContaining({ step: 'role_assignment', role: 'viewer', resource_instance: 'document:d' }),
    ]);
    const tenant = await s.api.post('/allowed?explain=true', { user: 'dave', action: 'read', resource: 'document:d' });
    expect(tenant.body.explanation.granted_by).toEqual([
      { kind: 'tenant_role', role: 'reader', tenant: 'acme', permission: 'document:read', assignment_id: expect.any(String) },
    ]);
  });

  it('explains a deny: nothing grants it, with what the user does hold', async () => {
    const r = await s.api.post('/allowed?explain=true', { user: 'bob', action: 'write', resource: 'document:d' });
    expect(r.body.allow).toBe(false);
    expect(r.body.explanation).toMatchObject({
      decision: 'deny',
      granted_by: [],
      roles_held: [{ kind: 'resource_role', role: 'viewer', permissions: ['read'] }],
    });
    expect(r.body.explanation.summary).toMatch(/^Nothing grants 'bob' 'write' on 'document:d'/);
    const unknown = await s.api.post('/allowed?explain=true', { user: 'nobody', action: 'read', resource: 'document:zzz' });
    expect(unknown.body).toMatchObject({
      allow: false,
      explanation: { decision: 'deny', resource: { instance_found: false }, roles_held: [] },
    });
    expect(unknown.body.explanation.summary).toMatch(/no instance 'document:zzz' exists/);
  });

  it('answers without an explanation unless asked', async () => {
    const r = await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:d' });
    expect(r.body).toEqual({ allow: true });
  });

  it('answers a bulk check with one answer per check, in order', async () => {
    const checks = [
      { user: { key: 'alice' }, action: 'write', resource: { type: 'document', key: 'd', tenant: 'default' }, context: {} },
      { user: { key: 'bob' }, action: 'write', resource: { type: 'document', key: 'd', tenant: 'default' }, context: {} },
      { user: 'bob', action: 'read', resource: 'document:d' },
      { user: 'dave', action: 'read', resource: { type: 'document', tenant: 'acme' } },
      { user: 'nobody', action: 'read', resource: 'document:nothing' },
    ];
    const r = await s.api.post('/allowed/bulk', checks);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ allow: [{ allow: true }, { allow: false }, { allow: true }, { allow: true }, { allow: false }] });
    const explained = await s.api.post('/allowed/bulk?explain=true', checks.slice(0, 2));
    expect(explained.body.allow.map((a: { explanation: { decision: string } }) => a.explanation.decision)).toEqual(['allow', 'deny']);
  });

  it('refuses a bulk request over the limit instead of cutting it short', async () => {
    const checks = Array.from({ length: 1001 }, () => ({ user: 'alice', action: 'read', resource: 'document:d' }));
    const r = await s.api.post('/allowed/bulk', checks);
    expect(r.status).toBe(422);
    expect((await s.api.post('/allowed/bulk', checks.slice(0, 1000))).body.allow).toHaveLength(1000);
  });

  it('needs an environment-scoped key', async () => {
    const r = await server.api.post('/allowed', { user: 'alice', action: 'read', resource: 'document:d' });
    expect(r.status).toBe(403);
  });
});
