import { grantsFeature } from '../../app/features/grants';
import { environmentCopyFeature } from '../../app/features/environment-copy';
import { FACTS, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * Permission checks (`POST /allowed/bulk`) in a copied environment give the
 * answers the source gave at the copied position: direct roles, derivations
 * through relations (granted_to and implicit grants), and denials.
 */
describe('permission checks in a copied environment', () => {
  let server: TestServer;
  let api: ApiClient;
  let source: ApiClient;

  const users = ['alice', 'bob', 'carol', 'dave', 'nobody'];
  const actions = ['read', 'write', 'share'];
  const resources = [
    { type: 'folder', key: 'docs', tenant: 'acme' },
    { type: 'folder', key: 'private', tenant: 'acme' },
    { type: 'file', key: 'readme', tenant: 'acme' },
    { type: 'file', key: 'notes', tenant: 'acme' },
    { type: 'file', key: 'secret', tenant: 'acme' },
  ];
  const matrix = users.flatMap((user) => actions.flatMap((action) => resources.map((resource) => ({ user, action, resource }))));

  async function answers(client: ApiClient): Promise<boolean[]> {
    const r = await client.post('/allowed/bulk', matrix);
    expect(r.status).toBe(200);
    return (r.body.allow as Array<{ allow: boolean }>).map((a) => a.allow);
  }
  async function clientFor(env: string): Promise<ApiClient> {
    return api.environmentClient('default', env);
  }
  async function copy(key: string, extra: Record<string, unknown> = {}) {
    const r = await api.post('/v2/projects/default/envs/production/copy/async?wait=20', {
      target_env: { new: { key, name: key } },
      scope: { facts: true },
      ...extra,
    });
    expect(r.body).toMatchObject({ status: 'success' });
  }

  beforeAll(async () => {
    server = await startTestServer({ features: [environmentCopyFeature(), grantsFeature()] });
    api = server.api;
    source = await api.environmentClient();
    await loadFolderFileExample(source);
    const post = async (path: string, body: unknown) => {
      const r = await source.post(`${FACTS}${path}`, body);
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
    };
    await post('/resource_instances', { key: 'private', resource: 'folder', tenant: 'acme' });
    await post('/resource_instances', { key: 'notes', resource: 'file', tenant: 'acme' });
    await post('/resource_instances', { key: 'secret', resource: 'file', tenant: 'acme' });
    await post('/relationship_tuples', { subject: 'folder:docs', relation: 'parent', object: 'file:notes' });
    await post('/relationship_tuples', { subject: 'folder:private', relation: 'parent', object: 'file:secret' });
    await post('/role_assignments', { user: 'bob', role: 'viewer', resource_instance: 'folder:docs' });
    await post('/role_assignments', { user: 'carol', role: 'editor', resource_instance: 'file:secret' });
    await post('/role_assignments', { user: 'dave', role: 'viewer', resource_instance: 'folder:private' });
  });
  afterAll(() => server.close());

  it('answers every check in the copy as in the source', async () => {
    const expected = await answers(source);
    expect(expected.filter(Boolean).length).toBeGreaterThan(5);
    expect(expected.filter((a) => !a).length).toBeGreaterThan(5);
    await copy('checks-copy');
    expect(await answers(await clientFor('checks-copy'))).toEqual(expected);
  });

  it('answers in a copy as of a position as the source answered then, not as it answers now', async () => {
    const before = await answers(source);
    const position = Number((await api.get('/readyz')).body.position);
    // Later changes to the source: a derivation removed, an assignment removed, a new tuple.
    await source.delete('/v2/schema/default/production/resources/file/roles/viewer/implicit_grants', {
      role: 'viewer',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    await source.delete(`${FACTS}/role_assignments`, { user: 'carol', role: 'editor', resource_instance: 'file:secret' });
    await source.post(`${FACTS}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:secret' });
    const now = await answers(source);
    expect(now).not.toEqual(before);

    await copy('checks-then', { as_of: position });
    await copy('checks-now');
    expect(await answers(await clientFor('checks-then'))).toEqual(before);
    expect(await answers(await clientFor('checks-now'))).toEqual(now);
  });
});
