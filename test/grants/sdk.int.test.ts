import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from './support/scenario';

/** The official `permitio` SDK pointed at our base URL for both the REST API and the PDP. */
describe('permit.check() of the permitio SDK', () => {
  let server: TestServer;
  let s: Scenario;
  let permit: Permit;
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'sdk');
    await documentSchema(s);
    await s.tenantRole('reader', ['document:read']);
    await s.instance('folder:f', 'acme');
    await s.instance('document:d', 'acme');
    await s.instance('document:other', 'globex');
    await s.tuple('folder:f', 'parent', 'document:d');
    await s.assign('alice', 'editor', 'folder:f');
    await s.assignTenantRole('dave', 'reader', 'acme');
    permit = new Permit({ token: s.api.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
  });
  afterAll(() => server.close());

  it('answers checks on derived roles, with string and object arguments', async () => {
    expect(await permit.check('alice', 'write', 'document:d')).toBe(true);
    expect(
      await permit.check(
        { key: 'alice', firstName: 'Alice', attributes: { dept: 'x' } },
        'read',
        { type: 'document', key: 'd', tenant: 'acme', attributes: {} },
        { ip: '1.2.3.4' },
      ),
    ).toBe(true);
    expect(await permit.check('alice', 'write', 'document:other')).toBe(false);
    expect(await permit.check('bob', 'read', 'document:d')).toBe(false);
    expect(await permit.check('alice', 'delete', 'document:d')).toBe(false);
  });

  it('answers checks on tenant-level roles', async () => {
    expect(await permit.check('dave', 'read', { type: 'document', key: 'd' })).toBe(true);
    expect(await permit.check('dave', 'read', { type: 'document', tenant: 'acme' })).toBe(true);
    expect(await permit.check('dave', 'read', 'document')).toBe(false);
    expect(await permit.check('dave', 'write', 'document:d')).toBe(false);
  });

  it('sees a role assigned through the SDK in the next check', async () => {
    await permit.api.roleAssignments.assign({ user: 'carol', role: 'viewer', resource_instance: 'folder:f' });
    expect(await permit.check('carol', 'read', 'document:d')).toBe(true);
    await permit.api.roleAssignments.unassign({ user: 'carol', role: 'viewer', resource_instance: 'folder:f' });
    expect(await permit.check('carol', 'read', 'document:d')).toBe(false);
  });

  it('answers bulkCheck and getUserPermissions', async () => {
    expect(
      await permit.bulkCheck([
        { user: 'alice', action: 'write', resource: 'document:d' },
        { user: 'dave', action: 'write', resource: 'document:d' },
        { user: 'dave', action: 'read', resource: 'document:d' },
      ]),
    ).toEqual([true, false, true]);
    const permissions = await permit.getUserPermissions('alice');
    expect(permissions['document:d']).toMatchObject({ permissions: ['document:read', 'document:write'], roles: ['editor'] });
    expect(permissions['folder:f']).toMatchObject({ roles: ['editor'] });
  });
});
