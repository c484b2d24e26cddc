import { expressPath, templateMatcher, templateParameters } from './path-template';

describe('OpenAPI path templates', () => {
  it('name their parameters in order', () => {
    expect(templateParameters('/v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}')).toEqual(['proj_id', 'env_id', 'tenant_id']);
    expect(templateParameters('/allowed/bulk')).toEqual([]);
  });

  it('turn into express paths with :parameters', () => {
    expect(expressPath('/resources/{resource_id}/roles/{role_id}')).toBe('/resources/:resource_id/roles/:role_id');
    expect(expressPath('/user-permissions')).toBe('/user-permissions');
  });

  it('refuse what express would read as path syntax, and paths without a leading slash', () => {
    expect(() => expressPath('/things/*')).toThrow(/not a path template/);
    expect(() => expressPath('/things/(id)')).toThrow(/not a path template/);
    expect(() => expressPath('things')).toThrow(/not a path template/);
  });

  it('match request paths as express matches routes: any letter case, optional trailing slash, one segment per parameter', () => {
    const matches = templateMatcher('/v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}');
    expect(matches('/v2/facts/default/production/tenants/acme')).toBe(true);
    expect(matches('/V2/Facts/default/production/TENANTS/acme/')).toBe(true);
    expect(matches('/v2/facts/default/production/tenants/acme%2Fother')).toBe(true);
    expect(matches('/v2/facts/default/production/tenants')).toBe(false);
    expect(matches('/v2/facts/default/production/tenants/')).toBe(false);
    expect(matches('/v2/facts/default/production/tenants/acme/more')).toBe(false);
    expect(templateMatcher('/openapi.json')('/openapiXjson')).toBe(false);
  });
});
