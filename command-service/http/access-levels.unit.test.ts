import { allows, requiredAccessLevel } from './access-levels';

describe('API key access levels', () => {
  it.each([
    ['GET', '/v2/facts/p/e/users', 'read'],
    ['HEAD', '/v2/schema/p/e/resources', 'read'],
    ['GET', '/v2/projects', 'read'],
    ['GET', '/v2/projects/p/envs/e/copy/async/t/result', 'read'],
    ['POST', '/allowed', 'read'],
    ['POST', '/allowed/bulk', 'read'],
    ['POST', '/user-permissions', 'read'],
    ['POST', '/authorized_users', 'read'],
    ['POST', '/Allowed/', 'read'],
    ['GET', '/v2/api-key/scope', 'read'],
    ['POST', '/v2/facts/p/e/tenants', 'write'],
    ['DELETE', '/v2/facts/p/e/role_assignments', 'write'],
    ['PATCH', '/v2/schema/p/e/resources/r/roles/x', 'write'],
    ['PUT', '/v2/facts/p/e/bulk/resource_instances', 'write'],
    ['POST', '/allowed/other', 'write'],
    ['POST', '/no/such/route', 'write'],
    ['GET', '/v2/api-key', 'admin'],
    ['GET', '/v2/api-key/some-id', 'admin'],
    ['GET', '/v2/api-key/p/e', 'admin'],
    ['POST', '/v2/api-key', 'admin'],
    ['POST', '/V2/API-KEY/', 'admin'],
    ['DELETE', '/v2/api-key/some-id', 'admin'],
    ['POST', '/v2/api-key/some-id/rotate-secret', 'admin'],
    ['POST', '/v2/projects', 'admin'],
    ['POST', '/v2/Projects/', 'admin'],
    ['POST', '/v2/projects/p/envs', 'admin'],
    ['DELETE', '/v2/projects/p/envs/e', 'admin'],
    ['POST', '/v2/projects/p/envs/e/copy/async', 'admin'],
  ])('%s %s needs %s', (method, path, level) => {
    expect(requiredAccessLevel(method, path)).toBe(level);
  });

  it('orders read < write < admin', () => {
    expect(allows('admin', 'write')).toBe(true);
    expect(allows('write', 'write')).toBe(true);
    expect(allows('write', 'admin')).toBe(false);
    expect(allows('read', 'read')).toBe(true);
    expect(allows('read', 'write')).toBe(false);
  });
});
