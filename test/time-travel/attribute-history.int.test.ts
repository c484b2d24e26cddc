import { FACTS, SCHEMA, startTestServer, type ApiClient, type ApiResponse, type TestServer } from '../support/embedded-server';

/**
 * `POST /allowed/history` of a decision a set rule (ABAC) makes: each change
 * names the set rule gained or lost and the attributes the event changed, old
 * → new, which the event itself does not carry (it holds the new values only).
 */
describe('the history of a decision made by a set rule', () => {
  let server: TestServer;
  let env: ApiClient;
  const ok = async (response: Promise<ApiResponse>) => {
    const r = await response;
    if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${JSON.stringify(r.body)}`);
    return r;
  };

  beforeAll(async () => {
    server = await startTestServer();
    const api = server.api;
    await ok(api.post(`${SCHEMA}/resources`, { key: 'report', name: 'Report', actions: { read: {} } }));
    await ok(
      api.post(`${SCHEMA}/condition_sets`, {
        key: 'legal',
        name: 'Legal',
        conditions: { allOf: [{ 'user.department': { equals: 'legal' } }] },
      }),
    );
    await ok(
      api.post(`${SCHEMA}/condition_sets`, { key: 'reports', name: 'Reports', type: 'resourceset', resource_id: 'report', conditions: {} }),
    );
    await ok(api.post(`${FACTS}/set_rules`, { user_set: 'legal', permission: 'report:read', resource_set: 'reports' }));
    await ok(api.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' }));
    await ok(api.post(`${FACTS}/resource_instances`, { key: 'q3', resource: 'report', tenant: 'acme' }));
    env = await api.environmentClient();
  });
  afterAll(() => server.close());

  it('names the set rule and the attribute that changed, old → new', async () => {
    const start = server.service.runner.position;
    const created = await ok(server.api.post(`${FACTS}/users`, { key: 'carol', attributes: { department: 'legal', level: 3 } }));
    const moved = await ok(server.api.patch(`${FACTS}/users/carol`, { attributes: { department: 'finance', level: 3 } }));
    const question = { user: 'carol', action: 'read', resource: 'report:q3' };

    const r = await ok(env.post('/allowed/history', { ...question, since: start }));
    const [gain, loss] = r.body.changes;
    expect(r.body.changes).toHaveLength(2);

    expect(gain).toMatchObject({ allow: true, position: Number(created.headers.get('x-event-position')), event: { type: 'UserCreated' } });
    expect(gain.roles_gained).toEqual([
      { kind: 'set_rule', set_rule: expect.any(String), user_set: 'legal', permission: 'report:read', resource_set: 'reports' },
    ]);
    // The user's identity and its unset built-in fields (email: null…) are not listed.
    expect(gain.attribute_changes).toEqual([
      { of: 'user', key: 'carol', attribute: 'department', after: 'legal' },
      { of: 'user', key: 'carol', attribute: 'level', after: 3 },
    ]);
    expect(gain.cause.summary).toContain("set rule '");
    expect(gain.cause.summary).toContain('now matches; user \'carol\' department: (unset) → "legal"');

    expect(loss).toMatchObject({ allow: false, position: Number(moved.headers.get('x-event-position')), event: { type: 'UserUpdated' } });
    // Only what changed: the level stayed 3.
    expect(loss.attribute_changes).toEqual([{ of: 'user', key: 'carol', attribute: 'department', before: 'legal', after: 'finance' }]);
    expect(loss.roles_lost.map((g: { kind: string }) => g.kind)).toEqual(['set_rule']);
    expect(loss.cause.summary).toMatch(
      /^denied by UserUpdated: set rule '\w+' \(user set 'legal' on resource set 'reports'\) no longer matches; user 'carol' department: "legal" → "finance"$/,
    );
    // The explanation then says which condition failed.
    expect(loss.explanation.set_rules[0].conditions).toEqual([
      expect.objectContaining({ set: 'legal', condition: 'user.department equals "legal"', matched: false }),
    ]);
  });

  it('lists an instance attribute removed by an update as unset after it', async () => {
    await ok(
      server.api.post(`${SCHEMA}/condition_sets`, {
        key: 'open-reports',
        name: 'Open',
        type: 'resourceset',
        resource_id: 'report',
        conditions: { allOf: [{ 'resource.open': { equals: true } }] },
      }),
    );
    await ok(server.api.post(`${SCHEMA}/condition_sets`, { key: 'everyone', name: 'Everyone', conditions: {} }));
    await ok(server.api.post(`${FACTS}/set_rules`, { user_set: 'everyone', permission: 'report:read', resource_set: 'open-reports' }));
    await ok(server.api.post(`${FACTS}/resource_instances`, { key: 'q4', resource: 'report', tenant: 'acme', attributes: { open: true } }));
    const start = server.service.runner.position;
    await ok(server.api.patch(`${FACTS}/resource_instances/report:q4`, { attributes: {} }));
    const r = await ok(env.post('/allowed/history', { user: 'dave', action: 'read', resource: 'report:q4', since: start }));
    expect(r.body.initial.allow).toBe(true);
    expect(r.body.changes.map((c: { attribute_changes: unknown }) => c.attribute_changes)).toEqual([
      [{ of: 'resource', key: 'report:q4', attribute: 'open', before: true }],
    ]);
  });

  it('has no attribute changes for an event that is not an attribute change', async () => {
    await ok(server.api.post(`${SCHEMA}/resources/report/roles`, { key: 'reader', name: 'Reader', permissions: ['read'] }));
    const start = server.service.runner.position;
    await ok(server.api.post(`${FACTS}/role_assignments`, { user: 'erin', role: 'reader', resource_instance: 'report:q3' }));
    const r = await ok(env.post('/allowed/history', { user: 'erin', action: 'read', resource: 'report:q3', since: start }));
    expect(r.body.changes.map((c: { event: { type: string }; attribute_changes: unknown }) => [c.event.type, c.attribute_changes])).toEqual(
      [['RoleAssigned', []]],
    );
  });
});
