import { loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';
import { failCheckpointSaves } from '../support/failing-checkpoints';

/**
 * The document store that holds the task relay's checkpoint fails for a
 * while (its saves throw, as an unreachable MongoDB's do) right after the
 * relay published a copy request: the relay goes on (it handles the batch
 * again), so copies requested afterwards still run.
 */
describe('the task relay when its checkpoint store fails for a while', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const copy = async (key: string) => {
    const r = await server.api.post('/v2/projects/default/envs/production/copy/async?wait=10', {
      target_env: { new: { key, name: key } },
      scope: { facts: true },
    });
    return { key, status: r.status, task: r.body.status as string };
  };

  it('goes on relaying copy requests', async () => {
    await loadFolderFileExample(await server.api.environmentClient());
    const relaySaves = failCheckpointSaves(server.service.documentStore, 'task-relay', 3);

    expect(await copy('first')).toEqual({ key: 'first', status: 202, task: 'success' });
    expect(await copy('second')).toEqual({ key: 'second', status: 202, task: 'success' });
    expect(relaySaves.failures).toBe(3);
    const keys = ((await server.api.get('/v2/projects/default/envs')).body as Array<{ key: string }>).map((e) => e.key).sort();
    expect(keys).toEqual(['first', 'production', 'second']);
  });
});
