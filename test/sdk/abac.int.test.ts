import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * ABAC through the official `permitio` SDK: attribute schemas on a resource,
 * condition sets (`permit.api.conditionSets`), set rules
 * (`permit.api.conditionSetRules`), then `permit.check` with attributes and context.
 */
describe('ABAC through the permitio SDK', () => {
  let server: TestServer;
  let permit: Permit;
  beforeAll(async () => {
    server = await startTestServer();
    const envApi = await server.api.environmentClient();
    permit = new Permit({ token: envApi.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
    await permit.api.resources.create({
      key: 'report',
      name: 'Report',
      actions: { read: {}, approve: {} },
      attributes: { cost: { type: 'number' }, department: { type: 'string' } },
    });
    await permit.api.tenants.create({ key: 'acme', name: 'Acme' });
    await permit.api.users.create({ key: 'fin', email: 'fin@acme.io', attributes: { department: 'finance', level: 3 } });
    await permit.api.users.create({ key: 'eng', email: 'eng@acme.io', attributes: { department: 'engineering', level: 5 } });
    await permit.api.resourceInstances.create({
      key: 'q3',
      resource: 'report',
      tenant: 'acme',
      attributes: { cost: 500, department: 'finance' },
    });
  });
  afterAll(() => server.close());

  it('creates, reads, updates and lists condition sets', async () => {
    const users = await permit.api.conditionSets.create({
      key: 'senior-staff',
      name: 'Senior staff',
      type: 'userset',
      conditions: { allOf: [{ 'user.level': { 'greater-than-equals': 3 } }] },
    });
    expect(users).toMatchObject({ key: 'senior-staff', type: 'userset' });
    const reports = await permit.api.conditionSets.create({
      key: 'cheap-reports',
      name: 'Cheap reports',
      type: 'resourceset',
      resource_id: 'report',
      conditions: {
        allOf: [{ 'resource.cost': { 'less-than': 1000 } }, { 'resource.department': { equals: { ref: 'user.department' } } }],
      },
    });
    expect(reports).toMatchObject({ key: 'cheap-reports', type: 'resourceset' });
    expect((await permit.api.conditionSets.get('cheap-reports')).id).toBe(reports.id);
    expect((await permit.api.conditionSets.getById(reports.id)).key).toBe('cheap-reports');
    const updated = await permit.api.conditionSets.update('senior-staff', { description: 'Level 3 and up' });
    expect(updated.description).toBe('Level 3 and up');
    expect((await permit.api.conditionSets.list()).map((s) => s.key).sort()).toEqual(['cheap-reports', 'senior-staff']);
  });

  it('refuses a condition comparing the wrong type (PermitApiError 422)', async () => {
    await expect(
      permit.api.conditionSets.create({
        key: 'broken',
        name: 'Broken',
        type: 'resourceset',
        resource_id: 'report',
        conditions: { allOf: [{ 'resource.cost': { contains: 'x' } }] },
      }),
    ).rejects.toMatchObject({ response: { status: 422 } });
  });

  it('set rules: create, list, then checks with stored attributes, sent attributes and context', async () => {
    const created = await permit.api.conditionSetRules.create({
      user_set: 'senior-staff',
      permission: 'report:read',
      resource_set: 'cheap-reports',
    });
    // Permit answers a list; the Node SDK hands back its first rule.
    expect(created).toMatchObject({ user_set: 'senior-staff', permission: 'report:read', resource_set: 'cheap-reports' });
    const listed = await permit.api.conditionSetRules.list({
      userSetKey: 'senior-staff',
      permissionKey: 'report:read',
      resourceSetKey: 'cheap-reports',
    });
    expect(listed).toHaveLength(1);

    // fin is senior and in the report's department; eng is senior but in another department.
    expect(await permit.check('fin', 'read', { type: 'report', key: 'q3', tenant: 'acme' })).toBe(true);
    expect(await permit.check('eng', 'read', { type: 'report', key: 'q3', tenant: 'acme' })).toBe(false);
    // Attributes sent with the check override the stored ones.
    expect(
      await permit.check({ key: 'eng', attributes: { department: 'finance' } }, 'read', { type: 'report', key: 'q3', tenant: 'acme' }),
    ).toBe(true);
    expect(await permit.check('fin', 'read', { type: 'report', key: 'q3', tenant: 'acme', attributes: { cost: 5000 } })).toBe(false);
    // A type-level check with only the attributes sent.
    expect(await permit.check('fin', 'read', { type: 'report', tenant: 'acme', attributes: { cost: 10, department: 'finance' } })).toBe(
      true,
    );

    await permit.api.conditionSets.create({
      key: 'on-vpn',
      name: 'On the VPN',
      type: 'userset',
      conditions: { allOf: [{ 'context.vpn': { equals: true } }] },
    });
    await permit.api.conditionSetRules.create({
      user_set: 'on-vpn',
      permission: 'report:approve',
      resource_set: 'report',
      is_resource: true,
    });
    expect(await permit.check('eng', 'approve', { type: 'report', key: 'q3', tenant: 'acme' })).toBe(false);
    expect(await permit.check('eng', 'approve', { type: 'report', key: 'q3', tenant: 'acme' }, { vpn: true })).toBe(true);

    await permit.api.conditionSetRules.delete({ user_set: 'senior-staff', permission: 'report:read', resource_set: 'cheap-reports' });
    expect(await permit.check('fin', 'read', { type: 'report', key: 'q3', tenant: 'acme' })).toBe(false);
  });

  it('deleting a condition set deletes its rules', async () => {
    await permit.api.conditionSets.delete('on-vpn');
    expect(await permit.api.conditionSetRules.list({ userSetKey: 'on-vpn' } as never)).toEqual([]);
    expect(await permit.check('eng', 'approve', { type: 'report', key: 'q3', tenant: 'acme' }, { vpn: true })).toBe(false);
  });
});
