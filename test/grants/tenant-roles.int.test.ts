import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from './support/scenario';

/** Top-level roles with `resource:action` permissions, assigned in a tenant (no resource_instance). */
describe('tenant-level roles in checks', () => {
  let server: TestServer;
  let s: Scenario;
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'tenant-roles');
    await documentSchema(s);
    await s.tenantRole('reader', ['document:read']);
    await s.tenantRole('folder-admin', ['folder:read', 'folder:write', 'folder:share']);
    await s.instance('document:ours', 'acme');
    await s.instance('document:theirs', 'globex');
    await s.instance('folder:f', 'acme');
    await s.assignTenantRole('dave', 'reader', 'acme');
  });
  afterAll(() => server.close());

  it('grants their actions on every resource of that type in the tenant, and nothing else', async () => {
    expect(await s.can('dave', 'document:ours')).toEqual(['read']);
    expect(await s.can('dave', 'folder:f')).toEqual([]);
    expect(await s.can('dave', 'document:theirs')).toEqual([]);
  });

  it('answers type-level checks in the named tenant', async () => {
    expect(await s.allowed('dave', 'read', { type: 'document', tenant: 'acme' })).toBe(true);
    expect(await s.allowed('dave', 'read', { type: 'document', tenant: 'globex' })).toBe(false);
    expect(await s.allowed('dave', 'write', { type: 'document', tenant: 'acme' })).toBe(false);
    // Permit's SDK names the tenant "default" when the caller gives none.
    expect(await s.allowed('dave', 'read', 'document')).toBe(false);
  });

  it("uses an existing instance's own tenant, whatever tenant the check names", async () => {
    expect(await s.allowed('dave', 'read', { type: 'document', key: 'theirs', tenant: 'acme' })).toBe(false);
    expect(await s.allowed('dave', 'read', { type: 'document', key: 'ours', tenant: 'default' })).toBe(true);
  });

  it('treats an instance it does not know as being in the tenant the check names (as Permit does without synced instances)', async () => {
    expect(await s.allowed('dave', 'read', { type: 'document', key: 'not-synced', tenant: 'acme' })).toBe(true);
    expect(await s.allowed('dave', 'read', { type: 'document', key: 'not-synced', tenant: 'globex' })).toBe(false);
  });

  it('combines with resource roles, and stops granting when unassigned or deleted', async () => {
    await s.assign('dave', 'editor', 'folder:f');
    await s.assignTenantRole('erin', 'folder-admin', 'acme');
    expect(await s.can('dave', 'folder:f', ['read', 'write', 'share'])).toEqual(['read', 'write']);
    expect(await s.can('erin', 'folder:f', ['read', 'write', 'share'])).toEqual(['read', 'write', 'share']);

    await s.ok(s.api.delete(`${s.facts}/role_assignments`, { user: 'dave', role: 'reader', tenant: 'acme' }));
    expect(await s.can('dave', 'document:ours')).toEqual([]);
    await s.ok(s.api.delete(`${s.schema}/roles/folder-admin`));
    expect(await s.can('erin', 'folder:f', ['read', 'write', 'share'])).toEqual([]);
  });

  it('follows permission changes of the role at once', async () => {
    await s.tenantRole('writer', ['document:read']);
    await s.assignTenantRole('frank', 'writer', 'acme');
    expect(await s.can('frank', 'document:ours')).toEqual(['read']);
    await s.ok(s.api.patch(`${s.schema}/roles/writer`, { permissions: ['document:read', 'document:write'] }));
    expect(await s.can('frank', 'document:ours')).toEqual(['read', 'write']);
  });
});
