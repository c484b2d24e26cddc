import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from './support/scenario';

/** A copied environment (its events replayed into a new stream) gets its own derived grants. */
describe('derived grants of a copied environment', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers the same checks in the copy, and the two evolve independently', async () => {
    const source = await Scenario.create(server, 'copy-source');
    await documentSchema(source);
    await source.instance('folder:f', 'acme');
    await source.instance('document:d', 'acme');
    await source.tuple('folder:f', 'parent', 'document:d');
    await source.assign('alice', 'editor', 'folder:f');

    const copy = await server.api.post('/v2/projects/default/envs/copy-source/copy/async?wait=30', {
      target_env: { new: { key: 'copy-target', name: 'Copy' } },
      scope: { facts: true },
    });
    expect(copy.status).toBe(202);
    expect(copy.body.status).toBe('success');
    const target = Scenario.existing(await server.api.environmentClient('default', 'copy-target'), 'copy-target');
    expect(await target.can('alice', 'document:d')).toEqual(['read', 'write']);

    await target.unassign('alice', 'editor', 'folder:f');
    expect(await target.can('alice', 'document:d')).toEqual([]);
    expect(await source.can('alice', 'document:d')).toEqual(['read', 'write']);
  });
});
