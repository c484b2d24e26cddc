import { environmentCopyFeature } from '../../app/features/environment-copy';
import { environmentView, normalise, policyOf } from '../copy/support/environment-view';
import { SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * An environment copy carries a resource's parts (actions, typed attributes,
 * action groups, urn) and the user attributes: into a new environment by
 * copying their events, into an existing one by the merge plan's commands.
 */
describe('copying the schema families', () => {
  let server: TestServer;
  let api: ApiClient;
  const copy = (target: unknown) => api.post('/v2/projects/default/envs/production/copy/async?wait=10', { target_env: target });

  /** What a copy must reproduce beyond the environment view: the parts' own definitions, without ids. */
  const partsOf = async (env: string) => {
    const schema = `/v2/schema/default/${env}`;
    return normalise({
      groups: (await api.get(`${schema}/resources/doc/action_groups`)).body,
      attributes: (await api.get(`${schema}/resources/doc/attributes`)).body,
      userAttributes: (await api.get(`${schema}/users/attributes`)).body,
    });
  };

  beforeAll(async () => {
    server = await startTestServer({ features: [environmentCopyFeature()] });
    api = server.api;
    const ok = async (answer: Promise<{ status: number; body: unknown }>) => expect((await answer).status).toBe(200);
    await ok(
      api.post(`${SCHEMA}/resources`, {
        key: 'doc',
        name: 'Doc',
        urn: 'urn:doc',
        actions: { read: {}, write: {}, print: {} },
        attributes: { private: { type: 'bool', description: 'Hidden' } },
        roles: { editor: { permissions: ['read', 'write', 'print'] } },
      }),
    );
    await ok(api.patch(`${SCHEMA}/resources/doc`, { description: 'Documents', actions: { share: { name: 'Share' } } }));
    await ok(api.post(`${SCHEMA}/resources/doc/attributes`, { key: 'pages', type: 'number' }));
    await ok(
      api.post(`${SCHEMA}/resources/doc/action_groups`, { key: 'out', name: 'Out', description: 'Leaves', actions: ['print', 'share'] }),
    );
    await ok(api.post(`${SCHEMA}/users/attributes`, { key: 'age', type: 'number' }));
    expect((await api.delete(`${SCHEMA}/resources/doc/actions/print`)).status).toBe(204);
  });
  afterAll(() => server.close());

  it('into a new environment', async () => {
    expect((await copy({ new: { key: 'staging', name: 'Staging' } })).body).toMatchObject({ status: 'success' });
    const [source, target] = await Promise.all([environmentView(api, 'production'), environmentView(api, 'staging')]);
    expect(policyOf(target)).toEqual(policyOf(source));
    expect(await partsOf('staging')).toEqual(await partsOf('production'));
  });

  it('into an existing environment', async () => {
    expect((await api.post('/v2/projects/default/envs', { key: 'qa', name: 'QA' })).status).toBe(200);
    expect((await copy({ existing: 'qa' })).body).toMatchObject({ status: 'success' });
    const [source, target] = await Promise.all([environmentView(api, 'production'), environmentView(api, 'qa')]);
    expect(policyOf(target)).toEqual(policyOf(source));
    expect(await partsOf('qa')).toEqual(await partsOf('production'));
    // Nothing differs now, so copying again changes nothing (and conflicts with nothing).
    expect((await copy({ existing: 'qa' })).body).toMatchObject({ status: 'success' });
  });
});
