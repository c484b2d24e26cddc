import { ApiClient, type ApiResponse, type TestServer } from '../../support/embedded-server';

/**
 * An environment of its own for a group of HTTP tests, with terse helpers for
 * the calls the grants tests make. Each group gets a fresh environment, so
 * schema changes in one test cannot leak into another group.
 */
export class Scenario {
  readonly schema: string;
  readonly facts: string;

  private constructor(
    readonly api: ApiClient,
    readonly envKey: string,
  ) {
    this.schema = `/v2/schema/default/${envKey}`;
    this.facts = `/v2/facts/default/${envKey}`;
  }

  /** An environment that exists already (e.g. the target of a copy). */
  static existing(api: ApiClient, envKey: string): Scenario {
    return new Scenario(api, envKey);
  }

  static async create(server: TestServer, envKey: string): Promise<Scenario> {
    const created = await server.api.post('/v2/projects/default/envs', { key: envKey, name: envKey });
    if (created.status !== 200)
      throw new Error(`could not create environment ${envKey}: ${created.status} ${JSON.stringify(created.body)}`);
    return new Scenario(await server.api.environmentClient('default', envKey), envKey);
  }

  /** The same environment and key on another server (after a restart on the same data). */
  on(url: string): Scenario {
    return new Scenario(new ApiClient(url, this.api.key), this.envKey);
  }

  /** Fails the test unless the call answers 200 (or 204 for deletes). */
  async ok<T = any>(call: Promise<ApiResponse<T>>): Promise<T> {
    const response = await call;
    if (response.status !== 200 && response.status !== 204)
      throw new Error(`expected success, got ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body;
  }

  resource(key: string, actions: string[]) {
    return this.ok(this.api.post(`${this.schema}/resources`, { key, name: key, actions: Object.fromEntries(actions.map((a) => [a, {}])) }));
  }
  role(resource: string, key: string, permissions: string[]) {
    return this.ok(this.api.post(`${this.schema}/resources/${resource}/roles`, { key, name: key, permissions }));
  }
  tenantRole(key: string, permissions: string[]) {
    return this.ok(this.api.post(`${this.schema}/roles`, { key, name: key, permissions }));
  }
  relation(object: string, key: string, subject: string) {
    return this.ok(this.api.post(`${this.schema}/resources/${object}/relations`, { key, name: key, subject_resource: subject }));
  }
  /** Implicit grant: holders of `sourceRole` on a linked `onResource` get `role` of `resource`. */
  derive(resource: string, role: string, onResource: string, sourceRole: string, relation: string) {
    return this.ok(
      this.api.post(`${this.schema}/resources/${resource}/roles/${role}/implicit_grants`, {
        role: sourceRole,
        on_resource: onResource,
        linked_by_relation: relation,
      }),
    );
  }
  underive(resource: string, role: string, onResource: string, sourceRole: string, relation: string) {
    return this.ok(
      this.api.delete(`${this.schema}/resources/${resource}/roles/${role}/implicit_grants`, {
        role: sourceRole,
        on_resource: onResource,
        linked_by_relation: relation,
      }),
    );
  }
  tenant(key: string) {
    return this.ok(this.api.post(`${this.facts}/tenants`, { key, name: key }));
  }
  instance(ref: string, tenant: string) {
    const [resource, key] = ref.split(':');
    return this.ok(this.api.post(`${this.facts}/resource_instances`, { key, resource, tenant }));
  }
  assign(user: string, role: string, resourceInstance: string) {
    return this.ok(this.api.post(`${this.facts}/role_assignments`, { user, role, resource_instance: resourceInstance }));
  }
  assignTenantRole(user: string, role: string, tenant: string) {
    return this.ok(this.api.post(`${this.facts}/role_assignments`, { user, role, tenant }));
  }
  unassign(user: string, role: string, resourceInstance: string) {
    return this.ok(this.api.delete(`${this.facts}/role_assignments`, { user, role, resource_instance: resourceInstance }));
  }
  tuple(subject: string, relation: string, object: string) {
    return this.ok(this.api.post(`${this.facts}/relationship_tuples`, { subject, relation, object }));
  }
  untuple(subject: string, relation: string, object: string) {
    return this.ok(this.api.delete(`${this.facts}/relationship_tuples`, { subject, relation, object }));
  }

  /** `POST /allowed`; the answer must be 200 with a boolean. */
  async allowed(user: string, action: string, resource: string | { type: string; key?: string; tenant?: string }): Promise<boolean> {
    const response = await this.api.post('/allowed', { user: { key: user }, action, resource, context: {} });
    if (response.status !== 200 || typeof response.body.allow !== 'boolean')
      throw new Error(`/allowed answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body.allow;
  }

  /** The actions of `actions` the user may do on `resource`, e.g. ['read', 'write']. */
  async can(user: string, resource: string, actions: string[] = ['read', 'write']): Promise<string[]> {
    const allowed: string[] = [];
    for (const action of actions) if (await this.allowed(user, action, resource)) allowed.push(action);
    return allowed;
  }
}

/**
 * The document-sharing schema most grants tests use: accounts own folders,
 * folders nest (cycles allowed) and hold documents.
 * - folder#editor ⇐ account#admin (via folder.account), ⇐ folder#editor (via folder.parent)
 * - folder#viewer ⇐ folder#viewer (via folder.parent)
 * - document#editor ⇐ folder#editor, document#viewer ⇐ folder#viewer (via document.parent)
 */
export async function documentSchema(s: Scenario): Promise<void> {
  await s.resource('account', ['read', 'manage']);
  await s.resource('folder', ['read', 'write', 'share']);
  await s.resource('document', ['read', 'write']);
  await s.role('account', 'admin', ['read', 'manage']);
  await s.role('account', 'member', ['read']);
  await s.role('folder', 'editor', ['read', 'write']);
  await s.role('folder', 'viewer', ['read']);
  await s.role('document', 'editor', ['read', 'write']);
  await s.role('document', 'viewer', ['read']);
  await s.relation('folder', 'account', 'account');
  await s.relation('folder', 'parent', 'folder');
  await s.relation('document', 'parent', 'folder');
  await s.derive('folder', 'editor', 'account', 'admin', 'account');
  await s.derive('folder', 'editor', 'folder', 'editor', 'parent');
  await s.derive('folder', 'viewer', 'folder', 'viewer', 'parent');
  await s.derive('document', 'editor', 'folder', 'editor', 'parent');
  await s.derive('document', 'viewer', 'folder', 'viewer', 'parent');
  await s.tenant('acme');
  await s.tenant('globex');
}
