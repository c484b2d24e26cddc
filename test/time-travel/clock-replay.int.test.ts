import { HistoryCollections } from '../../shared/read-models/history/history';
import { FACTS, startTestServer, type TestServer } from '../support/embedded-server';
import { failCheckpointSaves } from '../support/failing-checkpoints';

/**
 * A projection batch that fails after the history moved an environment's clock is applied again:
 * the clock entries of its events are there afterwards (a head kept in memory from the failed
 * attempt used to skip them on replay, since the attempt's writes were rolled back).
 */
describe('the history clock when a batch is applied again', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The test makes this process's store fail: the projections run on this thread.
    server = await startTestServer({ env: { READ_YOUR_WRITES_TIMEOUT_MS: '10000', PROJECTION_THREAD: 'false' } });
  });
  afterAll(() => server.close());

  it('keeps a clock entry for the event of a batch that failed once', async () => {
    const api = await server.api.environmentClient();
    expect((await api.post(`${FACTS}/tenants`, { key: 'before', name: 'Before' })).status).toBe(200);
    const projectionSaves = failCheckpointSaves(server.service.documentStore.writerView(), 'read-models', 1);
    // Later than every event before it, so its event moves the clock.
    await new Promise((r) => setTimeout(r, 5));
    const created = await api.post(`${FACTS}/tenants`, { key: 'retried', name: 'Retried' });
    expect(created.status).toBe(200);
    expect(projectionSaves.failures).toBe(1);
    const position = Number(created.headers.get('x-event-position'));
    const clock = await new HistoryCollections(server.service.documentStore).clock.find({});
    expect(clock.filter((entry) => entry.first === position)).toHaveLength(1);
  });
});
