import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from '../grants/support/scenario';

/** An environment copy carries role `extends` and derivation conditions, into a new and into an existing environment. */
describe('copying roles with extends and no_direct_roles_on_object', () => {
  let server: TestServer;
  let source: Scenario;
  beforeAll(async () => {
    server = await startTestServer();
    source = await Scenario.create(server, 'roles-source');
    await documentSchema(source);
    await source.role('document', 'commenter', []);
    await source.ok(source.api.patch(`${source.schema}/resources/document/roles/commenter`, { extends: ['viewer'] }));
    await source.ok(
      source.api.request('PUT', `${source.schema}/resources/document/roles/editor/implicit_grants/conditions`, {
        no_direct_roles_on_object: true,
      }),
    );
    await source.instance('folder:f', 'acme');
    await source.instance('document:d', 'acme');
    await source.tuple('folder:f', 'parent', 'document:d');
    await source.assign('alice', 'editor', 'folder:f');
    await source.assign('alice', 'commenter', 'document:d');
  });
  afterAll(() => server.close());

  async function expectCopied(target: Scenario): Promise<void> {
    const commenter = await target.ok(target.api.get(`${target.schema}/resources/document/roles/commenter`));
    expect(commenter.extends).toEqual(['viewer']);
    const editor = await target.ok(target.api.get(`${target.schema}/resources/document/roles/editor`));
    expect(editor.granted_to.when).toEqual({ no_direct_roles_on_object: true });
  }

  it('into a new environment: the roles and the checks they give', async () => {
    const copy = await server.api.post('/v2/projects/default/envs/roles-source/copy/async?wait=30', {
      target_env: { new: { key: 'roles-new', name: 'Copy' } },
      scope: { facts: true },
    });
    expect(copy.body.status).toBe('success');
    const target = Scenario.existing(await server.api.environmentClient('default', 'roles-new'), 'roles-new');
    await expectCopied(target);
    // commenter (direct) reads through viewer; the derived editor role is held back by the direct role.
    expect(await target.can('alice', 'document:d')).toEqual(['read']);
    await target.unassign('alice', 'commenter', 'document:d');
    expect(await target.can('alice', 'document:d')).toEqual(['read', 'write']);
  });

  it('into an existing environment (merged by commands)', async () => {
    const existing = await Scenario.create(server, 'roles-existing');
    const copy = await server.api.post('/v2/projects/default/envs/roles-source/copy/async?wait=30', {
      target_env: { existing: 'roles-existing' },
      scope: { facts: true },
    });
    expect(copy.body.status).toBe('success');
    await expectCopied(existing);
    expect(await existing.can('alice', 'document:d')).toEqual(['read']);
  });

  it('a scope that leaves a role out leaves it out of the extends of the roles it copies', async () => {
    const copy = await server.api.post('/v2/projects/default/envs/roles-source/copy/async?wait=30', {
      target_env: { new: { key: 'roles-scoped', name: 'Scoped' } },
      scope: { facts: false, roles: { exclude: ['viewer'] } },
    });
    expect(copy.body.status).toBe('success');
    const target = Scenario.existing(await server.api.environmentClient('default', 'roles-scoped'), 'roles-scoped');
    expect((await target.ok(target.api.get(`${target.schema}/resources/document/roles/commenter`))).extends).toEqual([]);
    expect((await target.api.get(`${target.schema}/resources/document/roles/viewer`)).status).toBe(404);
  });
});
