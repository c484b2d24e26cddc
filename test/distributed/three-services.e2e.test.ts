import { streams } from '../../shared/events';
import { parseCausation } from '../../task-service/copy/remap';
import { ApiClient, FACTS, loadFolderFileExample } from '../support/embedded-server';
import { Cluster, type ServiceProcess } from '../support/cluster';
import { sleep, until } from '../support/until';
import { rebuild, snapshot } from './support/read-models';

/**
 * The distributed deployment end to end: command, projection and task
 * services as three processes, with the event log on the PostgreSQL at
 * POSTGRES_URL (a SQLite file on disk shared by the processes without it), read
 * models on the MongoDB-protocol server at MONGODB_URL (FerretDB in CI) and
 * tasks on the Kafka at KAFKA_BROKERS: no file is shared between the processes
 * when POSTGRES_URL is set. The tests run in order on one cluster.
 */
jest.setTimeout(240_000);

const cluster = Cluster.fromEnvironment();
let command: ServiceProcess;
let projection: ServiceProcess;
let task: ServiceProcess;
let admin: ApiClient;
let env: ApiClient;

const check = (user: string, action: string, key: string) => ({
  user: { key: user },
  action,
  resource: { type: 'file', key, tenant: 'acme' },
});
const finished = (types: string[]) => types.includes('TaskSucceeded') || types.includes('TaskFailed');

beforeAll(async () => {
  [projection, task] = await Promise.all([cluster.start('projection'), cluster.start('task')]);
  command = await cluster.start('command');
  admin = new ApiClient(command.url, cluster.adminKey);
});

afterAll(async () => {
  await cluster.destroy();
});

describe(`three services as separate processes (${cluster.logEngine} log, MongoDB-protocol read models, Kafka tasks)`, () => {
  it('runs the seed folder/file flow, answers permission checks, and copies an environment with wait', async () => {
    env = await admin.environmentClient();
    await loadFolderFileExample(env);

    const allowed = await env.post('/allowed', check('alice', 'write', 'readme'));
    expect(allowed.status).toBe(200);
    expect(allowed.body.allow).toBe(true);
    expect((await env.post('/allowed', check('bob', 'read', 'readme'))).body.allow).toBe(false);

    const copy = await admin.post('/v2/projects/default/envs/production/copy/async?wait=30', {
      target_env: { new: { key: 'staging', name: 'Staging' } },
      scope: { facts: true },
    });
    expect(copy.status).toBe(202);
    expect(copy.body).toMatchObject({ status: 'success', error: null, result: { key: 'staging' } });
    const staging = await admin.environmentClient('default', 'staging');
    expect((await staging.post('/allowed', check('alice', 'write', 'readme'))).body.allow).toBe(true);
  });

  it('loses and duplicates nothing when the projection service is killed during a burst of writes', async () => {
    const files = Array.from({ length: 60 }, (_, i) => `f${i}`);
    const statuses: number[] = [];
    let next = 0;
    const writer = async () => {
      while (next < files.length) {
        const file = files[next++]!;
        statuses.push((await env.post(`${FACTS}/resource_instances`, { key: file, resource: 'file', tenant: 'acme' })).status);
        statuses.push(
          (await env.post(`${FACTS}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: `file:${file}` })).status,
        );
      }
    };
    const burst = Promise.all(Array.from({ length: 8 }, writer));

    await until('a part of the burst to be written', async () => (statuses.length >= 30 ? true : undefined), 60_000, 5);
    await projection.kill9();
    // (After a pause: a checkpoint save the dead process had already sent may still land.)
    await sleep(300);
    const checkpointAtKill = await cluster.checkpoint('read-models');
    const events = await cluster.openEventLog();
    const headAfterKill = await events.headPosition();
    await events.close();
    expect(headAfterKill).toBeGreaterThan(checkpointAtKill ?? 0);

    // The new process waits for the dead one's lease to expire, then resumes from the stored checkpoint.
    projection = await cluster.start('projection');
    const resumed = await until('the new projection service to take over', async () => {
      const ready = (await fetch(`${projection.url}/readyz`).then((r) => r.json())) as { role: string; startedFrom?: number };
      return ready.role === 'active' ? ready : undefined;
    });
    expect(resumed.startedFrom).toBe(checkpointAtKill);
    await burst;
    // Every write was acknowledged: held requests waited for the new projection service to catch up.
    expect(statuses).toEqual(files.flatMap(() => [200, 200]));

    // Derived grants for every file (folder editor → file editor through the tuple).
    for (const file of [files[0]!, files[29]!, files.at(-1)!])
      expect((await env.post('/allowed', check('alice', 'write', file))).body.allow).toBe(true);
    const listed = await env.get(`${FACTS}/resource_instances?include_total_count=true&per_page=1`);
    expect(listed.body.total_count).toBe(files.length + 2);

    // The read models equal a rebuild from scratch: no event was lost, none applied twice.
    const head = await rebuild(cluster);
    await until('the projection service to reach the head', async () => {
      const ready = await fetch(`${projection.url}/readyz`).then((r) => r.json() as Promise<{ position?: number }>);
      return (ready.position ?? 0) >= head ? true : undefined;
    });
    const live = nonEmpty(await snapshot(cluster.mongoUrl, cluster.database));
    const rebuilt = nonEmpty(await snapshot(cluster.mongoUrl, `${cluster.database}_rebuild`));
    expect(Object.keys(live)).toEqual(Object.keys(rebuilt));
    for (const name of Object.keys(live)) expect({ name, docs: live[name] }).toEqual({ name, docs: rebuilt[name] });
  });

  it('copies exactly once when the task service is killed in the middle of copies', async () => {
    // This task service's environment appends are slow, so the kill lands while copies are under way;
    // its successor is the ordinary entry point.
    await task.stop();
    task = await cluster.start('task', { tsEntry: 'test/distributed/support/slow-task-service.ts' });
    const events = await cluster.openEventLog({ pollIntervalMs: 20 });
    try {
      const source = (await admin.get('/v2/projects/default/envs/production')).body as { id: string };
      const sourceLength = (await events.streamVersion(streams.environment(source.id))) + 1;
      const keys = ['copy-a', 'copy-b', 'copy-c'];
      const started = await Promise.all(
        keys.map((key) =>
          admin.post('/v2/projects/default/envs/production/copy/async', {
            target_env: { new: { key, name: key } },
            scope: { facts: true },
          }),
        ),
      );
      expect(started.map((r) => r.status)).toEqual([202, 202, 202]);
      const taskIds = started.map((r) => r.body.task_id as string);
      const taskTypes = async (id: string) => (await events.readStream(streams.task(id))).map((e) => e.type);

      // Kill the task service as soon as one copy attempt has started.
      await until(
        'a copy attempt to start',
        async () => {
          for (const id of taskIds) if ((await taskTypes(id)).includes('TaskStarted')) return true;
          return undefined;
        },
        60_000,
        10,
      );
      await task.kill9();
      const unfinishedAtKill = [];
      for (const id of taskIds) if (!finished(await taskTypes(id))) unfinishedAtKill.push(id);
      expect(unfinishedAtKill.length).toBeGreaterThan(0);

      task = await cluster.start('task');
      for (const [i, id] of taskIds.entries()) {
        const done = await until(
          `task ${keys[i]} to finish`,
          async () => {
            const r = await admin.get(`/v2/projects/default/envs/production/copy/async/${id}/result?wait=10`);
            return r.body.status === 'processing' ? undefined : r.body;
          },
          120_000,
        );
        expect(done).toMatchObject({ status: 'success', result: { key: keys[i] } });

        const types = await taskTypes(id);
        expect(types.filter((t) => t === 'TaskSucceeded')).toHaveLength(1);
        expect(types.filter((t) => t === 'TaskFailed')).toHaveLength(0);
        // The target holds every source event once, in order.
        const copied = await events.readStream(streams.environment(done.result.id as string));
        expect(copied).toHaveLength(sourceLength);
        expect(copied.every((e, n) => parseCausation(e.metadata.causationId)?.version === n)).toBe(true);
      }
      const instances = async (environment: string) =>
        (await admin.get(`/v2/facts/default/${environment}/resource_instances?include_total_count=true&per_page=1`)).body
          .total_count as number;
      const expected = await instances('production');
      for (const key of keys) expect({ key, instances: await instances(key) }).toEqual({ key, instances: expected });
    } finally {
      await events.close();
    }
  });

  it('stops every service gracefully on SIGTERM', async () => {
    const codes = await Promise.all([command.stop(), task.stop(), projection.stop()]);
    expect(codes).toEqual([0, 0, 0]);
  });
});

function nonEmpty<T>(collections: Record<string, T[]>): Record<string, T[]> {
  return Object.fromEntries(Object.entries(collections).filter(([, docs]) => docs.length > 0));
}
