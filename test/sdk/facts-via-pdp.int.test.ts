import { Permit, PermitApiError } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * The `permitio` SDK's `proxyFactsViaPdp`: its facts APIs (users, tenants, resource instances, role
 * assignments, relationship tuples) send their requests to the PDP's base URL, with the API's own
 * `/v2/facts/{proj}/{env}/…` paths, and `waitForSync` / `factsSyncTimeout(Policy)` add the PDP's
 * X-Wait-Timeout and X-Timeout-Policy. Here the PDP and the API are one server.
 */
describe('permitio SDK: facts through the PDP, waiting for the sync', () => {
  let server: TestServer;
  let key: string;
  const sdk = (config: Record<string, unknown> = {}) =>
    new Permit({ token: key, apiUrl: server.url, pdp: server.url, proxyFactsViaPdp: true, log: { level: 'error' }, ...config });

  beforeAll(async () => {
    server = await startTestServer();
    key = (await server.api.environmentClient()).key;
    const permit = sdk();
    await permit.api.resources.create({ key: 'doc', name: 'Doc', actions: { read: {}, write: {} } });
    await permit.api.resourceRoles.create('doc', { key: 'owner', name: 'Owner', permissions: ['read', 'write'] });
    await permit.api.roles.create({ key: 'reader', name: 'Reader', permissions: ['doc:read'] });
  });
  afterAll(() => server.close());

  it('waitForSync(timeout, policy) on each facts API: the writes are answered once checks see them', async () => {
    const permit = sdk();
    await permit.api.tenants.waitForSync(5, 'fail').create({ key: 'acme', name: 'Acme' });
    await permit.api.users.waitForSync(5, 'fail').create({ key: 'ann' });
    await permit.api.resourceInstances.waitForSync(5, 'ignore').create({ key: 'd1', resource: 'doc', tenant: 'acme' });
    await permit.api.roleAssignments.waitForSync(5, 'fail').assign({ user: 'ann', role: 'owner', resource_instance: 'doc:d1' });
    expect(await permit.check('ann', 'write', { type: 'doc', key: 'd1', tenant: 'acme' })).toBe(true);
    // null: no bound (the SDK sends an empty X-Wait-Timeout).
    await permit.api.users.waitForSync(null).assignRole({ user: 'ann', role: 'reader', tenant: 'acme' });
    expect(await permit.check('ann', 'read', { type: 'doc', key: 'd2', tenant: 'acme' })).toBe(true);
    await permit.api.roleAssignments.waitForSync(0).unassign({ user: 'ann', role: 'owner', resource_instance: 'doc:d1' });
    expect(await permit.check('ann', 'write', { type: 'doc', key: 'd1', tenant: 'acme' })).toBe(false);
    expect((await permit.api.users.get('ann')).key).toBe('ann');
  });

  it('factsSyncTimeout and factsSyncTimeoutPolicy in the config go with every facts request; the server reads them', async () => {
    const permit = sdk({ factsSyncTimeout: 3, factsSyncTimeoutPolicy: 'fail' });
    await permit.api.tenants.create({ key: 'globex', name: 'Globex' });
    expect((await permit.api.tenants.get('globex')).key).toBe('globex');
    // A policy the PDP does not know is refused, naming the header: the headers reach the server.
    const before = await server.service.eventStore.headPosition();
    const wrong = sdk({ factsSyncTimeoutPolicy: 'retry' });
    const refused = await wrong.api.tenants.create({ key: 'initech', name: 'Initech' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PermitApiError);
    expect((refused as PermitApiError<unknown>).response?.status).toBe(422);
    expect(await server.service.eventStore.headPosition()).toBe(before);
  });
});
