import { Permit } from 'permitio';
import { loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';
import { environmentCopyFeature } from '../../app/features/environment-copy';
import { environmentView, policyOf } from './support/environment-view';

/** `permit.api.environments.copy` (the synchronous `POST .../copy`) from the official SDK, with a project-level key as it requires. */
describe('environment copy through the official permitio SDK', () => {
  let server: TestServer;
  let permit: Permit;
  beforeAll(async () => {
    server = await startTestServer({ features: [environmentCopyFeature()] });
    await loadFolderFileExample(await server.api.environmentClient());
    const key = await server.api.post('/v2/api-key', { project_id: 'default', object_type: 'project', name: 'sdk' });
    permit = new Permit({ token: key.body.secret, apiUrl: server.url, pdp: server.url, log: { level: 'silent' } });
  });
  afterAll(() => server.close());

  it('copies into a new environment and returns it', async () => {
    const env = await permit.api.environments.copy('default', 'production', { target_env: { new: { key: 'sdk-copy', name: 'SDK copy' } } });
    expect(env).toMatchObject({ key: 'sdk-copy', name: 'SDK copy', id: expect.any(String), project_id: expect.any(String) });
    expect(policyOf(await environmentView(server.api, 'sdk-copy'))).toEqual(policyOf(await environmentView(server.api, 'production')));
  });

  it("sends Permit's existing-target body, and a refused copy surfaces as an SDK error with our message", async () => {
    const again = await permit.api.environments.copy('default', 'production', {
      target_env: { existing: 'sdk-copy' },
      conflict_strategy: 'fail',
    });
    expect(again.key).toBe('sdk-copy');
    await expect(
      permit.api.environments.copy('default', 'production', { target_env: { new: { key: 'sdk-copy', name: 'Again' } } }),
    ).rejects.toThrow(/'sdk-copy' already exists/);
    await expect(
      permit.api.environments.copy('default', 'missing', { target_env: { new: { key: 'from-missing', name: 'X' } } }),
    ).rejects.toThrow(/'missing' not found/);
  });
});
