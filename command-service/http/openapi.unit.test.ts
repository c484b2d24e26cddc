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

describe('ApiRegistry document', () => {
  const thing = z.strictObject({ id: z.string(), name: z.string() }).meta({ id: 'UnitThing' });
  const document = () => {
    const api = new ApiRegistry();
    api.add({ method: 'get', path: '/things/{thing_id}', summary: 'Get', tag: 'Things', response: thing });
    api.add({ method: 'post', path: '/things', summary: 'Create', tag: 'Things', body: z.object({ name: z.string() }), response: thing });
    api.add({
      method: 'post',
      path: '/things/check',
      summary: 'Check',
      tag: 'Things',
      body: z.object({}),
      response: thing,
      readOnly: true,
    });
    api.add({ method: 'delete', path: '/things/{thing_id}', summary: 'Delete', tag: 'Things', status: 204 });
    return api.document() as { components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, any>> };
  };

  it('puts schemas with an id in components/schemas and refers to them', () => {
    const doc = document();
    expect(doc.components.schemas.UnitThing).toMatchObject({ type: 'object', additionalProperties: false, required: ['id', 'name'] });
    expect(doc.paths['/things/{thing_id}']!.get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/UnitThing',
    });
    expect(doc.paths['/things/{thing_id}']!.delete.responses['204']).toEqual({ description: 'Delete', headers: expect.any(Object) });
  });

  it('declares the error statuses on every operation, 409 on writes only', () => {
    const doc = document();
    const errors = (op: { responses: Record<string, unknown> }) => Object.keys(op.responses).filter((s) => !s.startsWith('2'));
    const common = ['400', '401', '403', '404', '405', '413', '415', '422', '424', '429', '431', '500', '503'];
    expect(errors(doc.paths['/things/{thing_id}']!.get)).toEqual(common);
    expect(errors(doc.paths['/things/check']!.post)).toEqual(common);
    expect(errors(doc.paths['/things']!.post).sort()).toEqual([...common, '409'].sort());
    expect(doc.paths['/things']!.post.responses['422'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ValidationError',
    });
    expect(doc.paths['/things']!.post.responses['429'].headers['Retry-After'].required).toBe(true);
  });

  it('refuses one id rendered two ways', () => {
    const api = new ApiRegistry();
    api.add({ method: 'get', path: '/a', summary: 'A', tag: 'T', response: z.object({ x: z.string() }).meta({ id: 'UnitTwice' }) });
    api.add({ method: 'get', path: '/b', summary: 'B', tag: 'T', response: z.object({ y: z.string() }).meta({ id: 'UnitTwiceToo' }) });
    expect(() => api.document()).not.toThrow();
    const one = z.object({ x: z.string().default('x') }).meta({ id: 'UnitBothWays' });
    api.add({ method: 'post', path: '/c', summary: 'C', tag: 'T', body: one, response: one });
    expect(() => api.document()).toThrow("The schema 'UnitBothWays' renders differently in two places");
  });

  it('finds the operation that answers a request path', () => {
    const api = new ApiRegistry();
    api.add({ method: 'get', path: '/things/{thing_id}', summary: 'Get', tag: 'T' });
    api.add({ method: 'get', path: '/things/special', summary: 'Special', tag: 'T' });
    expect(api.operationFor('get', '/things/special')?.summary).toBe('Special');
    expect(api.operationFor('get', '/things/t1')?.summary).toBe('Get');
    expect(api.operationFor('post', '/things/t1')).toBeUndefined();
  });
});
