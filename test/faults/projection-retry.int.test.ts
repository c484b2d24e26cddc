import { ProjectionRunner } from '../../projection-service/runner';
import { FACTS, loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';
import { failCheckpointSaves } from '../support/failing-checkpoints';

/**
 * The read-model store fails for a while under the embedded service (its
 * checkpoint saves throw, as an unreachable store's do): the projections
 * apply the failed batch again until it goes through, in the same process,
 * and the write that waited for them is acknowledged. (The MongoDB-protocol
 * server itself is killed in ferretdb-restart-projections.e2e.test.ts.)
 */
describe('projections when the read-model store fails for a while', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The test makes this process's store fail: the projections run on this thread (not their own).
    server = await startTestServer({ env: { READ_YOUR_WRITES_TIMEOUT_MS: '10000', PROJECTION_THREAD: 'false' } });
  });
  afterAll(() => server.close());

  it('apply the failed batch again until it goes through, and the write waiting for it is acknowledged', async () => {
    const api = await server.api.environmentClient();
    await loadFolderFileExample(api);
    const runner = server.service.runner as ProjectionRunner;
    expect(runner).toBeInstanceOf(ProjectionRunner);
    // The runner saves its checkpoint through the store's writer view, inside each batch's transaction.
    const projectionSaves = failCheckpointSaves(server.service.documentStore.writerView(), 'read-models', 4);

    const created = await api.post(`${FACTS}/resource_instances`, { key: 'late', resource: 'file', tenant: 'acme' });
    expect(created.status).toBe(200);
    expect(projectionSaves.failures).toBe(4);
    expect(runner.failure).toBeNull();
    expect(runner.failingAttempts).toBe(0);
    expect((await api.get(`${FACTS}/resource_instances/file:late`)).status).toBe(200);

    // The projections go on with the next writes.
    expect(
      (await api.post(`${FACTS}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:late' })).status,
    ).toBe(200);
    const allowed = await api.post('/allowed', {
      user: { key: 'alice' },
      action: 'write',
      resource: { type: 'file', key: 'late', tenant: 'acme' },
    });
    expect(allowed.body.allow).toBe(true);
  });
});
