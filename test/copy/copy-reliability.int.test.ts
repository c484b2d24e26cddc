import { CURRENT_SCHEMA_VERSION, streams } from '../../shared/events';
import { environmentCopyFeature } from '../../app/features/environment-copy';
import { parseCausation } from '../../task-service/copy/remap';
import { inScope } from '../../task-service/copy/scope';
import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';
import { environmentView } from './support/environment-view';
import { duplicatingQueue, gatedQueue } from './support/queues';

const copyPath = '/v2/projects/default/envs/production/copy/async';
const resultPath = (taskId: string) => `${copyPath}/${taskId}/result`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a copy whose worker has not started yet', () => {
  const queue = gatedQueue();
  const feature = environmentCopyFeature({ queue, worker: { maxAttempts: 3 } });
  let server: TestServer;
  let api: ApiClient;
  let envApi: ApiClient;
  let taskId: string;
  let sourceAtRequest: Awaited<ReturnType<typeof environmentView>>;

  beforeAll(async () => {
    server = await startTestServer({ features: [feature] });
    api = server.api;
    envApi = await api.environmentClient();
    await loadFolderFileExample(envApi);
  });
  afterAll(() => server.close());

  it('answers 202 processing with null result and error, and the result endpoint says the same', async () => {
    sourceAtRequest = await environmentView(api, 'production');
    const started = await api.post(copyPath, { target_env: { new: { key: 'frozen', name: 'Frozen' } }, scope: { facts: true } });
    expect(started.status).toBe(202);
    taskId = started.body.task_id;
    expect(started.body).toEqual({
      task_id: expect.any(String),
      status: 'processing',
      result: null,
      error: null,
      progress: expect.any(Object),
    });
    const result = await api.get(resultPath(taskId));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ task_id: taskId, status: 'processing', result: null, error: null });
  });

  it('does not copy writes made to the source after the request', async () => {
    await envApi.post(`${SCHEMA}/resources/folder/roles`, { key: 'late', name: 'Late', permissions: ['read'] });
    await envApi.post(`${FACTS}/resource_instances`, { key: 'late-folder', resource: 'folder', tenant: 'acme' });
    expect(await environmentView(api, 'production')).not.toEqual(sourceAtRequest);
  });

  it('answers still processing when wait runs out', async () => {
    const before = Date.now();
    const result = await api.get(`${resultPath(taskId)}?wait=1`);
    expect(Date.now() - before).toBeGreaterThanOrEqual(950);
    expect(result.body.status).toBe('processing');
  });

  it('lets go of a held request when its client disconnects', async () => {
    const abort = new AbortController();
    const held = fetch(`${server.url}${resultPath(taskId)}?wait=30`, {
      headers: { authorization: `Bearer ${server.adminKey}` },
      signal: abort.signal,
    }).catch((e: Error) => e);
    for (let i = 0; i < 100 && feature.completion.waiting === 0; i++) await sleep(10);
    expect(feature.completion.waiting).toBe(1);
    abort.abort();
    expect(((await held) as Error).name).toBe('AbortError');
    for (let i = 0; i < 100 && feature.completion.waiting > 0; i++) await sleep(10);
    expect(feature.completion.waiting).toBe(0);
  });

  it('fails a task whose attempts keep starting without finishing, instead of leaving it processing', async () => {
    const started = await api.post(copyPath, { target_env: { new: { key: 'crash-loop', name: 'Crash loop' } } });
    const stream = streams.task(started.body.task_id);
    const metadata = { actor: null, timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION };
    // Three attempts that started and never reported back (the process died each time).
    for (let attempt = 1; attempt <= 3; attempt++) {
      await server.service.eventStore.append(
        stream,
        [{ type: 'TaskStarted', data: { taskId: started.body.task_id, attempt }, metadata }],
        attempt - 1,
      );
    }
    queue.open();
    const result = await api.get(`${resultPath(started.body.task_id)}?wait=10`);
    expect(result.body).toMatchObject({
      status: 'failure',
      result: null,
      error: { error_code: 'UNEXPECTED_ERROR', id: started.body.task_id },
    });
    expect(result.body.error.message).toMatch(/3 times in a row without making progress/);
  });

  it('answers a held request as soon as the task finishes, with the source as it was at the request', async () => {
    const before = Date.now();
    const result = await api.get(`${resultPath(taskId)}?wait=30`);
    expect(Date.now() - before).toBeLessThan(10_000);
    expect(result.body).toMatchObject({ status: 'success', result: expect.objectContaining({ key: 'frozen' }) });
    expect(await environmentView(api, 'frozen')).toEqual(sourceAtRequest);
  });
});

describe('a copy command delivered more than once, also concurrently', () => {
  const queue = duplicatingQueue();
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ features: [environmentCopyFeature({ queue, batchSize: 3 })] });
    await loadFolderFileExample(await server.api.environmentClient());
  });
  afterAll(() => server.close());

  it('writes every source event into the target exactly once and reports one outcome', async () => {
    const started = await server.api.post(`${copyPath}?wait=10`, {
      target_env: { new: { key: 'twice', name: 'Twice' } },
      scope: { facts: true },
    });
    expect(started.body.status).toBe('success');
    for (let i = 0; i < 200 && queue.deliveries < 4; i++) await sleep(10);
    expect(queue.deliveries).toBeGreaterThanOrEqual(4);

    const store = server.service.eventStore;
    const sourceId = (await server.api.get('/v2/projects/default/envs/production')).body.id;
    const source = (await store.readStream(streams.environment(sourceId))).filter((e) => inScope(e.type, { facts: true }));
    const target = await store.readStream(streams.environment(started.body.result.id));
    expect(target.map((e) => parseCausation(e.metadata.causationId)!.version)).toEqual(source.map((e) => e.streamVersion));
    expect(target.map((e) => e.type)).toEqual(source.map((e) => e.type));

    // Let the late deliveries finish, then check the task stream.
    await sleep(300);
    const task = await store.readStream(streams.task(started.body.task_id));
    expect(task.filter((e) => e.type === 'TaskSucceeded' || e.type === 'TaskFailed').map((e) => e.type)).toEqual(['TaskSucceeded']);
    expect(await environmentView(server.api, 'twice')).toEqual(await environmentView(server.api, 'production'));
  });
});
