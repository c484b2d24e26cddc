import type { z } from 'zod';
import type { ApiRegistry, HttpMethod } from '../../command-service/http/openapi';
import { errorSchema, validationErrorSchema } from '../../command-service/http/responses';
import { INSTANCE_REF_PATTERN } from '../../command-service/http/validation';
import {
  ApiClient,
  FACTS,
  loadFolderFileExample,
  SCHEMA,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '../support/embedded-server';

type Doc = {
  components: { schemas: Record<string, unknown> };
  paths: Record<string, Record<string, any>>;
};

/** The statuses every operation declares, with the error shape (422: the validation shape). */
const ERRORS = ['400', '401', '403', '404', '405', '413', '415', '422', '424', '429', '431', '500', '503'];

describe('/openapi.json is complete', () => {
  let server: TestServer;
  let doc: Doc;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

  beforeAll(async () => {
    server = await startTestServer();
    doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
  });
  afterAll(() => server.close());

  it('declares every operation’s success answer with its body schema (204: none) and every error status with the error shape', () => {
    expect(operations().length).toBeGreaterThan(50);
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(op.responses);
      const success = statuses.find((s) => s.startsWith('2'));
      expect([where, success]).toEqual([where, expect.stringMatching(/^20[024]$/)]);
      // JSON, or one message's schema for the audit log's server-sent events (text/event-stream).
      const content = op.responses[success!].content ?? {};
      const body = (content['application/json'] ?? content['text/event-stream'])?.schema;
      expect([where, success === '204' ? 'no body' : body]).toEqual([where, success === '204' ? 'no body' : expect.any(Object)]);

      const writes = method !== 'get' && op.tags[0] !== 'Permission checks';
      // AuthZEN's operations with a body answer its 400 (a message) where the others answer 415 and 422.
      const authzen = method === 'post' && path.startsWith('/access/v1/');
      const errors = [...ERRORS.filter((s) => !authzen || (s !== '415' && s !== '422')), ...(writes ? ['409'] : [])];
      expect([where, statuses.filter((s) => !s.startsWith('2')).sort()]).toEqual([where, errors.sort()]);
      for (const status of errors) {
        const schema = op.responses[status].content['application/json'].schema;
        const shape = authzen && status === '400' ? 'AuthZenBadRequest' : status === '422' ? 'ValidationError' : 'Error';
        expect([where, status, schema]).toEqual([where, status, { $ref: `#/components/schemas/${shape}` }]);
      }
      expect(op.responses['429'].headers['Retry-After'].required).toBe(true);
      expect(op.responses['405'].headers.Allow.required).toBe(true);
    }
  });

  it('gives every operation a unique operationId and resolves every $ref to a component', () => {
    const ids = operations().map(({ op }) => op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    const refs = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, item] of Object.entries(value)) {
          if (key === '$ref') refs.add(item as string);
          else walk(item);
        }
      }
    };
    walk(doc);
    expect(refs.size).toBeGreaterThan(20);
    for (const ref of refs)
      expect([ref, doc.components.schemas[ref.replace('#/components/schemas/', '')]]).toEqual([ref, expect.any(Object)]);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Error', 'ValidationError', 'Project', 'Environment', 'ApiKeyCreated', 'Resource', 'ResourceRole', 'Role']),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Relation', 'Tenant', 'User', 'UserPage', 'ResourceInstance', 'RoleAssignment', 'RelationshipTuple', 'Task']),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['CheckAnswer', 'TenantList', 'UserPermissions']));
  });

  it('states the rules the server enforces where a schema can say them', () => {
    const body = (path: string, method = 'post') => doc.paths[path]![method].requestBody.content['application/json'].schema;
    const query = (path: string, name: string, method = 'get') =>
      doc.paths[path]![method].parameters.find((p: { name: string; in: string }) => p.in === 'query' && p.name === name);
    // An optional body member is documented as `anyOf: [its schema, null]` (null means absent); its schema.
    const member = (schema: any, name: string): any => {
      const property = schema.properties[name];
      const [taken, nullable] = property.anyOf ?? [];
      return nullable && JSON.stringify(nullable) === '{"type":"null"}' ? taken : property;
    };
    const pathParameter = (path: string, name: string, method = 'get') =>
      doc.paths[path]![method].parameters.find((p: { name: string; in: string }) => p.in === 'path' && p.name === name);

    // `type:key` references, and a tenant or a resource instance.
    const tuple = body(`/v2/facts/{proj_id}/{env_id}/relationship_tuples`);
    expect(tuple.properties.subject.pattern).toBe(INSTANCE_REF_PATTERN);
    expect(tuple.properties.object.pattern).toBe(INSTANCE_REF_PATTERN);
    // Optional members also take null (absent); required ones do not.
    expect(tuple.required).toEqual(expect.arrayContaining(['subject', 'relation', 'object']));
    expect(tuple.properties.subject.anyOf).toBeUndefined();
    expect(tuple.properties.tenant.anyOf).toEqual([expect.objectContaining({ type: 'string' }), { type: 'null' }]);
    const assignment = body(`/v2/facts/{proj_id}/{env_id}/role_assignments`);
    // Given means present and not null (a null for an optional member is absent).
    const given = (name: string) => ({ required: [name], properties: { [name]: { not: { type: 'null' } } } });
    expect(assignment.anyOf).toEqual([given('tenant'), given('resource_instance')]);
    // Unassigning too, one or in bulk (the server refuses either without both with 400).
    expect(body(`/v2/facts/{proj_id}/{env_id}/role_assignments`, 'delete').anyOf).toEqual(assignment.anyOf);
    expect(body(`/v2/facts/{proj_id}/{env_id}/role_assignments/bulk`, 'delete').items.anyOf).toEqual(assignment.anyOf);
    // An end: a date-time or null (null removes it), the format on the string.
    expect(assignment.properties.expires_at.anyOf).toEqual([{ type: 'string', format: 'date-time' }, { type: 'null' }]);
    expect(pathParameter('/v2/facts/{proj_id}/{env_id}/resource_instances/{instance_id}', 'instance_id').schema.pattern).toBe(
      INSTANCE_REF_PATTERN,
    );
    // Key patterns and bounds, in bodies and paths.
    expect(body('/v2/facts/{proj_id}/{env_id}/tenants').properties.key).toMatchObject({ pattern: '^[A-Za-z0-9\\-_]+$', maxLength: 256 });
    expect(pathParameter('/v2/facts/{proj_id}/{env_id}/tenants/{tenant_id}', 'tenant_id').schema.pattern).toBe('^[A-Za-z0-9\\-_]+$');
    expect(body('/allowed/bulk').maxItems).toBe(1000);
    expect(member(body('/v2/facts/{proj_id}/{env_id}/relationship_tuples/bulk'), 'operations').maxItems).toBe(10_000);
    // Query enums and bounds.
    expect(query('/allowed', 'explain', 'post').schema).toEqual({ type: 'string', enum: ['true', 'false'] });
    expect(query('/v2/facts/{proj_id}/{env_id}/tenants', 'per_page').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 100,
    });
    expect(query('/v2/projects/{proj_id}/envs/{env_id}/copy/async', 'wait', 'post').schema).toMatchObject({ minimum: 0, maximum: 60 });
    // Top-level roles: `resource:action` permissions, no derivations.
    const topLevelRole = body('/v2/schema/{proj_id}/{env_id}/roles');
    expect(member(topLevelRole, 'permissions').items.pattern).toBe('^[^:]+:[^:]+$');
    expect(member(member(topLevelRole, 'granted_to'), 'users_with_role').maxItems).toBe(0);
    // A key's scope is said: the body is required, and so is one of organization_id, project_id, object_type.
    const apiKey = doc.paths['/v2/api-key']!.post.requestBody;
    expect(apiKey.required).toBe(true);
    expect(apiKey.content['application/json'].schema.allOf[0]).toEqual({
      anyOf: [given('organization_id'), given('project_id'), given('object_type')],
    });
  });
});

/**
 * A client that checks every answer against what the route declared: the
 * success body against its response schema, an error against the error shape.
 * The schemas are strict, so a field the server sends and the document does not
 * declare fails here too.
 */
class CheckedClient extends ApiClient {
  readonly seen = new Map<string, number>();

  constructor(
    url: string,
    key: string,
    private readonly api: ApiRegistry,
  ) {
    super(url, key);
  }

  override withKey(key: string): CheckedClient {
    return new CheckedClient(this.url, key, this.api);
  }

  override async request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>> {
    const response = await super.request<T>(method, path, body, headers);
    const requestPath = path.split('?')[0]!;
    const op = this.api.operationFor(method.toLowerCase() as HttpMethod, requestPath);
    if (!op) throw new Error(`no operation declared for ${method} ${requestPath}`);
    const success = op.status ?? 200;
    const schema: z.ZodType | undefined =
      response.status === success
        ? op.response
        : (op.responses?.[response.status]?.schema ?? (response.status === 422 ? validationErrorSchema : errorSchema));
    const label = `${method} ${op.path} → ${response.status}`;
    if (response.status === 204) expect([label, response.body]).toEqual([label, undefined]);
    else {
      const checked = schema!.safeParse(response.body);
      if (!checked.success) throw new Error(`${label}: the answer does not match the declared schema: ${checked.error.message}`);
    }
    this.seen.set(`${method} ${op.path} ${response.status}`, (this.seen.get(`${method} ${op.path} ${response.status}`) ?? 0) + 1);
    return response;
  }
}

describe('real answers match the declared response schemas', () => {
  let server: TestServer;
  let admin: CheckedClient;
  let env: CheckedClient;

  beforeAll(async () => {
    server = await startTestServer();
    const app = server.service.app;
    admin = new CheckedClient(server.url, server.adminKey, app.locals.api as ApiRegistry);
    const key = await admin.post('/v2/api-key', {
      project_id: 'default',
      environment_id: 'production',
      object_type: 'env',
      name: 'checks',
    });
    env = admin.withKey(key.body.secret as string);
  });
  afterAll(() => server.close());

  it('the policy and facts: creates, gets, lists (both forms), updates, deletes', async () => {
    await loadFolderFileExample(admin);
    await admin.post(`${SCHEMA}/roles`, { key: 'member', name: 'Member', permissions: ['file:read'] });
    await admin.post(`${FACTS}/users`, { key: 'bob', email: 'bob@example.com', first_name: 'Bob' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'member', tenant: 'acme' });
    for (const path of [
      `${SCHEMA}/resources`,
      `${SCHEMA}/resources/folder/roles`,
      `${SCHEMA}/roles`,
      `${SCHEMA}/resources/file/relations`,
      `${FACTS}/tenants`,
      `${FACTS}/users`,
      `${FACTS}/resource_instances`,
      `${FACTS}/role_assignments`,
      `${FACTS}/relationship_tuples`,
      '/v2/projects',
      '/v2/projects/default/envs',
    ]) {
      expect((await admin.get(path)).status).toBe(200);
      expect((await admin.get(`${path}?include_total_count=true&per_page=1`)).status).toBe(200);
    }
    for (const path of [
      `${SCHEMA}/resources/file`,
      `${SCHEMA}/resources/file/roles/editor`,
      `${SCHEMA}/roles/member`,
      `${SCHEMA}/resources/file/relations/parent`,
      `${FACTS}/tenants/acme`,
      `${FACTS}/users/alice`,
      `${FACTS}/resource_instances/file:readme`,
      '/v2/projects/default',
      '/v2/projects/default/envs/production',
      '/v2/api-key/scope',
    ]) {
      expect((await admin.get(path)).status).toBe(200);
    }
    expect((await env.get('/v2/api-key/scope')).status).toBe(200);
    expect((await admin.patch(`${SCHEMA}/roles/member`, { description: 'Members of a tenant' })).status).toBe(200);
    // Role permissions, the role hierarchy and derivation conditions.
    await admin.post(`${SCHEMA}/roles`, { key: 'guest', name: 'Guest', permissions: [] });
    expect((await admin.patch(`${SCHEMA}/roles/guest`, { extends: ['member'] })).status).toBe(200);
    for (const base of [`${SCHEMA}/roles/guest`, `${SCHEMA}/resources/file/roles/editor`]) {
      const permission = base.includes('/resources/') ? 'read' : 'file:read';
      expect((await admin.post(`${base}/permissions`, { permissions: [permission] })).status).toBe(200);
      expect((await admin.delete(`${base}/permissions`, { permissions: [permission] })).status).toBe(200);
      expect((await admin.post(`${base}/permissions`, { permissions: [permission] })).status).toBe(200);
      expect((await admin.get(`${base}/ancestors`)).status).toBe(200);
      const parent = base.includes('/resources/') ? 'viewer' : 'member';
      expect((await admin.request('PUT', `${base}/parents/${parent}`)).status).toBe(200);
      expect((await admin.delete(`${base}/parents/${parent}`)).status).toBe(200);
      expect((await admin.request('PUT', `${base}/parents/${parent}`)).status).toBe(200);
      expect((await admin.get(`${base}/descendants`)).status).toBe(200);
    }
    expect((await admin.get(`${SCHEMA}/roles/member/descendants`)).body).toHaveLength(1);
    expect(
      (await admin.request('PUT', `${SCHEMA}/resources/file/roles/editor/implicit_grants/conditions`, { no_direct_roles_on_object: false }))
        .status,
    ).toBe(200);
    expect((await admin.delete(`${FACTS}/role_assignments`, { user: 'bob', role: 'member', tenant: 'acme' })).status).toBe(204);
    expect(
      (await admin.delete(`${FACTS}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:readme' })).status,
    ).toBe(204);
    expect(
      (
        await admin.delete(`${SCHEMA}/resources/file/roles/viewer/implicit_grants`, {
          role: 'viewer',
          on_resource: 'folder',
          linked_by_relation: 'parent',
        })
      ).status,
    ).toBe(204);
    expect((await admin.post('/v2/projects', { key: 'second', name: 'Second' })).status).toBe(200);
    expect((await admin.post('/v2/projects/second/envs', { key: 'staging', name: 'Staging' })).status).toBe(200);
  });

  it('bulk writes, checks with and without explanations, permission pages', async () => {
    expect(
      (await admin.request('PUT', `${FACTS}/bulk/resource_instances`, { operations: [{ key: 'b1', resource: 'file', tenant: 'acme' }] }))
        .status,
    ).toBe(200);
    expect(
      (
        await admin.post(`${FACTS}/relationship_tuples/bulk`, {
          operations: [{ subject: 'folder:docs', relation: 'parent', object: 'file:b1' }],
        })
      ).status,
    ).toBe(200);
    expect(
      (await admin.post(`${FACTS}/role_assignments/bulk`, [{ user: 'carol', role: 'viewer', resource_instance: 'file:b1' }])).status,
    ).toBe(200);
    expect(
      (await admin.delete(`${FACTS}/role_assignments/bulk`, [{ user: 'carol', role: 'viewer', resource_instance: 'file:b1' }])).status,
    ).toBe(200);
    expect(
      (
        await admin.delete(`${FACTS}/relationship_tuples/bulk`, {
          idents: [{ subject: 'folder:docs', relation: 'parent', object: 'file:b1' }],
        })
      ).status,
    ).toBe(200);
    expect((await admin.delete(`${FACTS}/bulk/resource_instances`, { idents: ['file:b1'] })).status).toBe(200);

    await admin.post(`${FACTS}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:readme' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'dave', role: 'member', tenant: 'acme' });
    const check = { user: 'alice', action: 'write', resource: 'file:readme' };
    expect((await env.post('/allowed', check)).body).toEqual({ allow: true });
    expect((await env.post('/allowed?explain=true', check)).body.explanation.decision).toBe('allow');
    expect((await env.post('/allowed?explain=true', { ...check, user: 'nobody' })).body.explanation.decision).toBe('deny');
    expect((await env.post('/allowed?explain=true', { user: 'dave', action: 'read', resource: 'file:readme' })).body.allow).toBe(true);
    expect((await env.post('/allowed/bulk?explain=true', [check, { ...check, user: 'nobody' }])).body.allow).toHaveLength(2);
    expect((await env.post('/allowed/bulk', [check])).status).toBe(200);
    const permissions = await env.post('/user-permissions', { user: 'alice', limit: 1 });
    expect(permissions.body.next_cursor).toEqual(expect.any(String));
    expect((await env.post('/user-permissions', { user: 'dave' })).status).toBe(200);
    expect((await env.post('/authorized_users', { action: 'read', resource: 'file:readme', limit: 1 })).status).toBe(200);
    expect((await env.post('/allowed/history', { user: 'dave', action: 'read', resource: 'file:readme' })).status).toBe(200);
  });

  it('condition sets and set rules (ABAC)', async () => {
    const userSet = { key: 'adults', name: 'Adults', conditions: { allOf: [{ 'user.age': { 'greater-than-equals': 18 } }] } };
    expect((await admin.post(`${SCHEMA}/condition_sets`, userSet)).status).toBe(200);
    expect((await admin.post(`${SCHEMA}/condition_sets`, { key: 'eu-adults', name: 'EU adults', parent_id: 'adults' })).status).toBe(200);
    const resourceSet = { key: 'public-folders', name: 'Public', type: 'resourceset', resource_id: 'folder', conditions: {} };
    expect((await admin.post(`${SCHEMA}/condition_sets`, resourceSet)).status).toBe(200);
    expect((await admin.post(`${SCHEMA}/condition_sets`, { key: 'x', name: 'X', conditions: { 'user.a': { nope: 1 } } })).status).toBe(422);
    expect((await admin.get(`${SCHEMA}/condition_sets?type=userset`)).status).toBe(200);
    expect((await admin.get(`${SCHEMA}/condition_sets/adults`)).status).toBe(200);
    expect((await admin.get(`${SCHEMA}/condition_sets/eu-adults/ancestors`)).body).toHaveLength(1);
    expect((await admin.get(`${SCHEMA}/condition_sets/adults/descendants`)).body).toHaveLength(1);
    expect((await admin.get(`${SCHEMA}/condition_sets/adults/possible_parents`)).body).toEqual([]);
    expect((await admin.patch(`${SCHEMA}/condition_sets/adults`, { description: 'Of age' })).status).toBe(200);
    const rule = { user_set: 'adults', permission: 'folder:read', resource_set: 'public-folders' };
    expect((await admin.post(`${FACTS}/set_rules`, rule)).status).toBe(200);
    expect((await admin.get(`${FACTS}/set_rules?permission=folder:read`)).body).toHaveLength(1);
    const abacCheck = { user: { key: 'nobody', attributes: { age: 30 } }, action: 'read', resource: 'folder:docs' };
    expect((await env.post('/allowed?explain=true', abacCheck)).body.explanation.granted_by[0].kind).toBe('set_rule');
    expect((await admin.delete(`${FACTS}/set_rules`, rule)).status).toBe(204);
    expect((await admin.delete(`${SCHEMA}/condition_sets/adults`)).status).toBe(204);
  });

  it('proxy configs', async () => {
    const rule = { url: 'https://api.example.com/v1', http_method: 'get', resource: 'file' };
    expect((await admin.post(`${FACTS}/proxy_configs`, { key: 'api', name: 'API', secret: 'tok', mapping_rules: [rule] })).status).toBe(
      200,
    );
    expect((await admin.get(`${FACTS}/proxy_configs`)).status).toBe(200);
    expect((await admin.get(`${FACTS}/proxy_configs/api`)).status).toBe(200);
    expect((await admin.patch(`${FACTS}/proxy_configs/api`, { mapping_rules: [{ ...rule, should_delete: true }] })).status).toBe(200);
    expect((await admin.delete(`${FACTS}/proxy_configs/api`)).status).toBe(204);
  });

  it('saved assertions: create, list, get, change, export, import, run, dry run, delete', async () => {
    const base = `${SCHEMA}/assertions`;
    const created = await admin.post(base, { user: 'a', action: 'read', resource: 'file:x', expected: 'deny' });
    expect(created.status).toBe(200);
    expect((await admin.get(base)).status).toBe(200);
    expect((await admin.get(`${base}?include_total_count=true`)).status).toBe(200);
    expect((await admin.get(`${base}/${created.body.id}`)).status).toBe(200);
    expect((await admin.patch(`${base}/${created.body.id}`, { expected: 'allow' })).status).toBe(200);
    const file = await admin.get(`${base}/export`);
    expect(file.status).toBe(200);
    expect((await admin.request('PUT', `${base}/import?mode=merge`, file.body)).status).toBe(200);
    expect((await admin.post(`${base}/run`, {})).status).toBe(200);
    expect((await admin.post(`${base}/run?fail_on_mismatch=true`, {})).status).toBe(409);
    const edit = { method: 'POST', path: `${SCHEMA}/resources`, body: { key: 'dry-doc', name: 'Dry', actions: { read: {} } } };
    expect((await admin.post(`${base}/dry_run`, { edits: [edit] })).status).toBe(200);
    expect((await admin.post(`${base}/dry_run`, { edits: [{ method: 'DELETE', path: `${SCHEMA}/resources/no-such-type` }] })).status).toBe(
      422,
    );
    expect((await admin.delete(`${base}/${created.body.id}`)).status).toBe(204);
  });

  it('groups', async () => {
    await admin.post(`${FACTS}/tenants`, { key: 'grp-tenant', name: 'Groups' });
    await admin.post(`${SCHEMA}/resources`, {
      key: 'grp-doc',
      name: 'Doc',
      actions: { read: {} },
      roles: { reader: { name: 'Reader', permissions: ['read'] } },
    });
    await admin.post(`${FACTS}/resource_instances`, { key: 'one', resource: 'grp-doc', tenant: 'grp-tenant' });
    await admin.post(`${FACTS}/users`, { key: 'grp-user' });
    const role = { role: 'reader', resource: 'grp-doc', resource_instance: 'one', tenant: 'grp-tenant' };
    expect((await admin.post(`${SCHEMA}/groups`, { group_instance_key: 'team', group_tenant: 'grp-tenant' })).status).toBe(200);
    expect((await admin.get(`${SCHEMA}/groups`)).status).toBe(200);
    expect((await admin.get(`${SCHEMA}/groups/team`)).status).toBe(200);
    expect((await admin.post(`${SCHEMA}/groups/team/roles`, role)).status).toBe(200);
    expect((await admin.get(`${SCHEMA}/groups/team/roles`)).status).toBe(200);
    expect((await admin.request('PUT', `${SCHEMA}/groups/team/users/grp-user`, {})).status).toBe(200);
    expect((await admin.get(`${SCHEMA}/groups/team/users`)).status).toBe(200);
    expect((await admin.delete(`${SCHEMA}/groups/team/users/grp-user`)).status).toBe(204);
    expect((await admin.delete(`${SCHEMA}/groups/team/roles`, role)).status).toBe(204);
    expect((await admin.delete(`${SCHEMA}/groups/team`)).status).toBe(204);
  });

  it('user invites: create, list, get, update, approve, delete', async () => {
    const invite = {
      key: 'ivy@example.com',
      status: 'pending',
      email: 'ivy@example.com',
      first_name: 'Ivy',
      last_name: 'Invited',
      role_id: 'member',
      tenant_id: 'acme',
      resource_instance_id: null,
    };
    const created = await admin.post(`${FACTS}/user_invites`, invite);
    expect(created.status).toBe(200);
    expect((await admin.get(`${FACTS}/user_invites?search=ivy`)).body.total_count).toBe(1);
    expect((await admin.get(`${FACTS}/user_invites/${created.body.id}`)).status).toBe(200);
    expect((await admin.patch(`${FACTS}/user_invites/ivy@example.com`, { last_name: 'Welcome' })).status).toBe(200);
    const approval = { email: 'ivy@example.com', key: 'ivy', attributes: {} };
    expect((await admin.post(`${FACTS}/user_invites/ivy@example.com/approve`, approval)).status).toBe(200);
    expect((await admin.delete(`${FACTS}/user_invites/ivy@example.com`)).status).toBe(204);
  });

  it('users, tenants and instances: sync, updates, tenant users, user roles, detailed lists, their bulk forms', async () => {
    const synced = await admin.request('PUT', `${FACTS}/users/sync1`, {
      key: 'sync1',
      role_assignments: [{ role: 'member', tenant: 'acme' }],
    });
    expect(synced.status).toBe(201);
    expect((await admin.request('PUT', `${FACTS}/users/sync1`, { email: 's@example.com' })).status).toBe(200);
    expect((await admin.patch(`${FACTS}/users/sync1`, { first_name: 'Sync' })).status).toBe(200);
    expect((await admin.post(`${FACTS}/users/sync1/roles`, { role: 'viewer', resource_instance: 'file:readme' })).status).toBe(200);
    expect((await admin.delete(`${FACTS}/users/sync1/roles`, { role: 'viewer', resource_instance: 'file:readme' })).status).toBe(204);
    expect((await admin.patch(`${FACTS}/tenants/acme`, { description: 'Acme Inc.' })).status).toBe(200);
    expect((await admin.get(`${FACTS}/tenants/acme/users?role=member`)).status).toBe(200);
    expect((await admin.delete(`${FACTS}/tenants/acme/users/sync1`)).status).toBe(204);
    expect((await admin.delete(`${FACTS}/users/sync1`)).status).toBe(204);
    expect((await admin.patch(`${FACTS}/resource_instances/file:readme`, { attributes: { a: 1 } })).status).toBe(200);
    expect((await admin.get(`${FACTS}/resource_instances?detailed=true&include_total_count=true`)).status).toBe(200);
    expect((await admin.get(`${FACTS}/resource_instances/detailed`)).status).toBe(200);
    expect((await admin.get(`${FACTS}/role_assignments?detailed=true`)).status).toBe(200);
    expect((await admin.get(`${FACTS}/role_assignments/detailed?include_total_count=true`)).status).toBe(200);
    expect((await admin.get(`${FACTS}/relationship_tuples?detailed=true`)).status).toBe(200);
    expect((await admin.get(`${FACTS}/relationship_tuples/detailed`)).status).toBe(200);
    expect((await admin.post(`${FACTS}/bulk/users`, { operations: [{ key: 'bu1' }] })).status).toBe(200);
    expect((await admin.request('PUT', `${FACTS}/bulk/users`, { operations: [{ key: 'bu1' }, { key: 'bu2' }] })).status).toBe(200);
    expect((await admin.delete(`${FACTS}/bulk/users`, { idents: ['bu1', 'bu2'] })).status).toBe(200);
    expect((await admin.post(`${FACTS}/bulk/tenants`, { operations: [{ key: 'bt1', name: 'BT1' }] })).status).toBe(200);
    expect((await admin.delete(`${FACTS}/bulk/tenants`, { idents: ['bt1'] })).status).toBe(200);
  });

  it('deletes', async () => {
    expect((await admin.delete(`${FACTS}/resource_instances/file:readme`)).status).toBe(204);
    expect((await admin.delete(`${SCHEMA}/resources/file/relations/parent`)).status).toBe(204);
    expect((await admin.delete(`${SCHEMA}/resources/folder/roles/viewer`)).status).toBe(204);
    expect((await admin.delete(`${SCHEMA}/roles/member`)).status).toBe(204);
    await admin.post(`${FACTS}/tenants`, { key: 'gone', name: 'Gone' });
    expect((await admin.delete(`${FACTS}/tenants/gone`)).status).toBe(204);
    await admin.post(`${SCHEMA}/resources`, { key: 'gone', name: 'Gone', actions: {} });
    expect((await admin.delete(`${SCHEMA}/resources/gone`)).status).toBe(204);
  });

  it('resource updates and resource parts: actions, attributes, action groups', async () => {
    const sheet = `${SCHEMA}/resources/sheet`;
    const created = await admin.post(`${SCHEMA}/resources`, {
      key: 'sheet',
      name: 'Sheet',
      urn: 'urn:sheet',
      actions: { read: {}, write: { name: 'Write' } },
      attributes: { locked: { type: 'bool' } },
      roles: { reader: { permissions: ['read'] } },
      relations: { parent: 'sheet' },
    });
    expect(created.status).toBe(200);
    expect((await admin.patch(sheet, { description: 'A sheet', actions: { share: {} } })).status).toBe(200);
    expect(
      (await admin.request('PUT', sheet, { name: 'Sheet', actions: { read: {}, share: {} }, attributes: { locked: { type: 'bool' } } }))
        .status,
    ).toBe(200);
    for (const part of ['actions', 'attributes', 'action_groups']) {
      expect((await admin.get(`${sheet}/${part}`)).status).toBe(200);
      expect((await admin.get(`${sheet}/${part}?include_total_count=true&per_page=1`)).status).toBe(200);
    }
    expect((await admin.post(`${sheet}/actions`, { key: 'print', name: 'Print' })).status).toBe(200);
    expect((await admin.get(`${sheet}/actions/print`)).status).toBe(200);
    expect((await admin.patch(`${sheet}/actions/print`, { description: 'On paper' })).status).toBe(200);
    expect((await admin.post(`${sheet}/attributes`, { key: 'pages', type: 'number' })).status).toBe(200);
    expect((await admin.get(`${sheet}/attributes/pages`)).status).toBe(200);
    expect((await admin.patch(`${sheet}/attributes/pages`, { description: 'How many' })).status).toBe(200);
    expect((await admin.post(`${sheet}/action_groups`, { key: 'out', name: 'Out', actions: ['print', 'share'] })).status).toBe(200);
    expect((await admin.get(`${sheet}/action_groups/out`)).status).toBe(200);
    expect((await admin.patch(`${sheet}/action_groups/out`, { actions: ['print'] })).status).toBe(200);
    expect((await admin.delete(`${sheet}/action_groups/out`)).status).toBe(204);
    expect((await admin.delete(`${sheet}/attributes/pages`)).status).toBe(204);
    expect((await admin.delete(`${sheet}/actions/print`)).status).toBe(204);
    expect((await admin.post(`${sheet}/attributes`, { key: 'bad', type: 'date' })).status).toBe(422);
    const users = `${SCHEMA}/users/attributes`;
    expect((await admin.get(users)).status).toBe(200);
    expect((await admin.post(users, { key: 'age', type: 'number' })).status).toBe(200);
    expect((await admin.get(`${users}?include_total_count=true`)).status).toBe(200);
    expect((await admin.get(`${users}/age`)).status).toBe(200);
    expect((await admin.patch(`${users}/age`, { description: 'Years' })).status).toBe(200);
    expect((await admin.delete(`${users}/age`)).status).toBe(204);
    expect((await admin.get(`${sheet}/actions/nope`)).status).toBe(404);
  });

  it('API key management: list, get, rotate, the environment key, delete', async () => {
    expect((await admin.get('/v2/api-key')).status).toBe(200);
    const made = await admin.post('/v2/api-key', {
      project_id: 'default',
      environment_id: 'production',
      object_type: 'env',
      name: 'spare',
    });
    expect((await admin.get(`/v2/api-key/${made.body.id}`)).status).toBe(200);
    expect((await admin.request('POST', `/v2/api-key/${made.body.id}/rotate-secret`)).status).toBe(200);
    expect((await admin.get('/v2/api-key/default/production')).status).toBe(200);
    expect((await admin.delete(`/v2/api-key/${made.body.id}`)).status).toBe(204);
  });

  it('an environment copy: the task while it runs, and its result', async () => {
    const started = await admin.post('/v2/projects/default/envs/production/copy/async', {
      target_env: { new: { key: 'copied', name: 'Copied' } },
    });
    expect(started.status).toBe(202);
    const result = await admin.get(`/v2/projects/default/envs/production/copy/async/${started.body.task_id}/result?wait=30`);
    expect(result.body.status).toBe('success');
    const copied = await admin.post('/v2/projects/default/envs/production/copy', {
      target_env: { new: { key: 'copied-again', name: 'Again' } },
    });
    expect(copied.status).toBe(200);
  });

  it('projects and environments: update, statistics, delete', async () => {
    expect((await admin.post('/v2/projects', { key: 'doomed', name: 'Doomed' })).status).toBe(200);
    expect((await admin.patch('/v2/projects/doomed', { description: 'soon gone' })).status).toBe(200);
    expect((await admin.patch('/v2/projects/doomed/envs/development', { name: 'Dev' })).status).toBe(200);
    expect((await admin.get('/v2/projects/doomed/envs/development/stats')).status).toBe(200);
    expect((await admin.delete('/v2/projects/doomed/envs/development')).status).toBe(204);
    expect((await admin.delete('/v2/projects/doomed')).status).toBe(204);
  });

  it('the PDP tenant endpoints and local role assignments', async () => {
    expect((await env.post('/allowed/all-tenants', { user: 'alice', action: 'read', resource: 'file' })).status).toBe(200);
    expect((await env.post('/user-tenants', { user: 'alice' })).status).toBe(200);
    expect((await env.get('/local/role_assignments?user=alice')).status).toBe(200);
    const url = { user: { key: 'alice' }, http_method: 'GET', url: 'https://app.example.com/files/1', tenant: 'default' };
    expect((await env.post('/allowed_url', url)).status).toBe(200);
  });

  it('AuthZEN: discovery, evaluations, searches', async () => {
    const subject = { type: 'user', id: 'alice' };
    const resource = { type: 'file', id: 'readme' };
    expect((await env.get('/.well-known/authzen-configuration')).status).toBe(200);
    expect((await env.post('/access/v1/evaluation', { subject, action: { name: 'read' }, resource })).status).toBe(200);
    expect((await env.post('/access/v1/evaluations', { subject, resource, evaluations: [{ action: { name: 'read' } }] })).status).toBe(200);
    expect((await env.post('/access/v1/search/subject', { subject: { type: 'user' }, action: { name: 'read' }, resource })).status).toBe(
      200,
    );
    expect((await env.post('/access/v1/search/resource', { subject, action: { name: 'read' }, resource: { type: 'file' } })).status).toBe(
      200,
    );
    expect((await env.post('/access/v1/search/action', { subject, resource })).status).toBe(200);
  });

  it('errors, in the error shape or the validation shape', async () => {
    expect((await admin.get(`${FACTS}/tenants/nope`)).status).toBe(404);
    expect((await admin.post(`${FACTS}/tenants`, { key: 'acme', name: 'Again' })).status).toBe(409);
    expect((await admin.post(`${FACTS}/tenants`, { key: 'bad key', name: 'Bad' })).status).toBe(422);
    expect((await admin.get(`${FACTS}/tenants?per_page=500`)).status).toBe(422);
    expect((await admin.withKey('permit_key_wrong').get(`${FACTS}/tenants`)).status).toBe(401);
    expect((await env.post('/v2/projects', { key: 'nope', name: 'No' })).status).toBe(403);
    expect(
      (await admin.post(`${FACTS}/relationship_tuples`, { subject: 'nocolon', relation: 'parent', object: 'file:readme' })).status,
    ).toBe(400);
    expect((await admin.post('/allowed', { user: 'alice', action: 'read', resource: 'file:readme' })).status).toBe(403);
    // AuthZEN's bad request: 400 with the message (declared per operation).
    expect((await env.post('/access/v1/evaluation', { subject: { type: 'user' }, action: { name: 'read' } })).status).toBe(400);
  });

  it('the audit log: a page of the environment log and of the organisation log', async () => {
    expect((await admin.get('/v2/events/default/production?limit=5')).status).toBe(200);
    expect((await admin.get('/v2/events?stream=org&limit=5')).status).toBe(200);
  });

  it('the decision log: a page of decisions, and one of them', async () => {
    const page = await admin.get('/v2/pdps/default/production/audit_logs?per_page=5&decision=true');
    expect(page.status).toBe(200);
    expect(page.body.data.length).toBeGreaterThan(0);
    expect((await admin.get(`/v2/pdps/default/production/audit_logs/${page.body.data[0].id}`)).status).toBe(200);
  });

  it('went through every declared operation', () => {
    const app = server.service.app;
    const declared = (app.locals.api as ApiRegistry).declared().map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    const answered = new Set([...admin.seen.keys(), ...env.seen.keys()].map((k) => k.split(' ').slice(0, 2).join(' ')));
    // The audit log's streams never end, so this client cannot read them whole; test/audit/ reads them
    // message by message, and each message is an entry of the page schema checked above.
    const streams = ['GET /v2/events/{proj_id}/{env_id}/stream', 'GET /v2/events/stream'];
    expect(declared.filter((op) => !answered.has(op) && !streams.includes(op))).toEqual([]);
  });
});

describe('request bodies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('an empty body is no body: refused with 422 where one is required', async () => {
    for (const [method, path] of [
      ['POST', '/v2/api-key'],
      ['PATCH', `${SCHEMA}/roles/anything`],
      ['POST', `${FACTS}/tenants`],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json', 'content-length': '0' },
      });
      expect([method, path, response.status]).toEqual([method, path, 422]);
      expect(await response.json()).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'invalid_type' }] });
    }
  });

  it('POST /v2/api-key needs the scope said: `{}` mints nothing; contradictions are refused', async () => {
    const api = server.api;
    const locs = (r: ApiResponse) => (r.body.detail as Array<{ loc: unknown[] }>).map((d) => d.loc.join('.'));
    const empty = await api.post('/v2/api-key', {});
    expect(empty.status).toBe(422);
    expect(locs(empty)).toEqual(['body']);
    expect(locs(await api.post('/v2/api-key', { environment_id: 'production' }))).toEqual(['body', 'body.project_id']);
    expect(locs(await api.post('/v2/api-key', { organization_id: 'any', environment_id: 'production' }))).toEqual(['body.project_id']);
    expect(locs(await api.post('/v2/api-key', { project_id: 'default', object_type: 'env' }))).toEqual(['body.environment_id']);
    expect(locs(await api.post('/v2/api-key', { project_id: 'default', environment_id: 'production', object_type: 'project' }))).toEqual([
      'body.environment_id',
    ]);
    expect(locs(await api.post('/v2/api-key', { project_id: 'default', object_type: 'org' }))).toEqual(['body.object_type']);

    const org = await api.post('/v2/api-key', { object_type: 'org', name: 'org' });
    expect(org.body).toMatchObject({ object_type: 'org', project_id: null, environment_id: null });
    const byOrganization = await api.post('/v2/api-key', { organization_id: org.body.organization_id });
    expect(byOrganization.body).toMatchObject({ object_type: 'org' });
    expect((await api.post('/v2/api-key', { project_id: 'default' })).body).toMatchObject({ object_type: 'project', environment_id: null });
  });

  it('query integers are decimal digits: an empty, hexadecimal or exponent form is refused', async () => {
    for (const page of ['', '0x1', '1e1', '%201', '1.0']) {
      expect([page, (await server.api.get(`${FACTS}/tenants?page=${page}`)).status]).toEqual([page, 422]);
    }
    expect((await server.api.get(`${FACTS}/tenants?page=2&per_page=10`)).status).toBe(200);
  });

  it('a tuple naming an instance id that does not exist is 404, as a `type:key` that does not exist is', async () => {
    await loadFolderFileExample(server.api);
    const missing = await server.api.post(`${FACTS}/relationship_tuples`, {
      subject: '3f0c9c0e-0000-4000-8000-000000000000',
      relation: 'parent',
      object: 'file:readme',
    });
    expect(missing.status).toBe(404);
    const byId = (await server.api.get(`${FACTS}/resource_instances/folder:docs`)).body.id as string;
    expect(
      (await server.api.delete(`${FACTS}/relationship_tuples`, { subject: byId, relation: 'parent', object: 'file:readme' })).status,
    ).toBe(204);
  });
});
