import { z } from 'zod';
import { ApiRegistry } from './openapi';

describe('ApiRegistry', () => {
  const registry = () => {
    const api = new ApiRegistry();
    api.add({ method: 'get', path: '/v2/facts/{proj_id}/{env_id}/tenants', summary: 'List', tag: 'Tenants' });
    api.add({ method: 'post', path: '/v2/facts/{proj_id}/{env_id}/tenants', summary: 'Create', tag: 'Tenants', body: z.object({}) });
    api.add({ method: 'get', path: '/v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}', summary: 'Get', tag: 'Tenants' });
    api.add({ method: 'delete', path: '/v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}', summary: 'Delete', tag: 'Tenants' });
    return api;
  };

  it('keeps the declared operations, method and path template, in order', () => {
    expect(registry().declared()).toEqual([
      { method: 'get', path: '/v2/facts/{proj_id}/{env_id}/tenants' },
      { method: 'post', path: '/v2/facts/{proj_id}/{env_id}/tenants' },
      { method: 'get', path: '/v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}' },
      { method: 'delete', path: '/v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}' },
    ]);
  });

  it('answers which methods a request path has', () => {
    const api = registry();
    expect(api.methodsAt('/v2/facts/default/production/tenants')).toEqual(['get', 'post']);
    expect(api.methodsAt('/v2/facts/default/production/tenants/acme')).toEqual(['get', 'delete']);
    expect(api.methodsAt('/v2/facts/default/production/users')).toEqual([]);
  });

  it('refuses the same method on the same path twice', () => {
    const api = registry();
    expect(() => api.add({ method: 'get', path: '/v2/facts/{proj_id}/{env_id}/tenants', summary: 'Again', tag: 'Tenants' })).toThrow(
      'GET /v2/facts/{proj_id}/{env_id}/tenants is declared twice',
    );
  });
});
