import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environmentCopyFeature } from '../../app/features/environment-copy';
import { bulkFeature } from '../../app/features/bulk';
import { grantsFeature } from '../../app/features/grants';
import { streams } from '../../shared/events';
import { parseCausation } from '../../task-service/copy/remap';
import { ApiClient, FACTS, loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';
import { sleep, until } from '../support/until';
import { ensureRunning, expectManagedServer, serverScript } from './support/servers';

/**
 * The Kafka broker dies (SIGKILL) while environment copies run, and comes
 * back on its data a little later: the embedded service with TASK_QUEUE=kafka
 * at KAFKA_BROKERS (the Kafka that .ci/e2e.sh starts through scripts/kafka.sh,
 * which this test kills and restarts). A copy under way at the kill finishes
 * while the broker is down (its acknowledgement cannot be committed, so its
 * message comes again), one is requested while the broker is down and one
 * after it is back: each succeeds exactly once, and no target holds an event
 * twice.
 */
jest.setTimeout(300_000);

const brokers = process.env.KAFKA_BROKERS;
/** Each append to a copy's target waits this long (a copy is several appends). */
const SLOW_TARGET_APPEND_MS = 300;

const PATH = '/v2/projects/default/envs/production';
let dataDir: string;
let server: TestServer;
let admin: ApiClient;
/** Lets the copy `spanning` go on after its first batch (the broker is down by then). */
let release: () => void = () => undefined;

beforeAll(async () => {
  if (!brokers) throw new Error('KAFKA_BROKERS must be set: run .ci/e2e.sh (or scripts/test-servers.sh start)');
  await expectManagedServer('kafka');
  dataDir = mkdtempSync(join(tmpdir(), 'rebac-kafka-fault-'));
  server = await startTestServer({
    dataDir,
    env: {
      TASK_QUEUE: 'kafka',
      KAFKA_BROKERS: brokers,
      KAFKA_TOPIC_PREFIX: `faults${Date.now()}${process.pid}`,
      KAFKA_TASK_PARTITIONS: '3',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    },
    // Copies in batches of 10 events: several appends each.
    features: [environmentCopyFeature({ batchSize: 10 }), grantsFeature(), bulkFeature()],
  });
  admin = server.api;
});

afterAll(async () => {
  release();
  await ensureRunning('kafka');
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the Kafka broker killed and restarted during environment copies', () => {
  it('finishes every copy exactly once, with every source event once in its target', async () => {
    const env = await admin.environmentClient();
    await loadFolderFileExample(env);
    for (let i = 0; i < 40; i++) {
      expect((await env.post(`${FACTS}/resource_instances`, { key: `f${i}`, resource: 'file', tenant: 'acme' })).status).toBe(200);
    }
    const events = server.service.eventStore;
    const source = (await admin.get(PATH)).body as { id: string };
    const sourceStream = streams.environment(source.id);
    const sourceLength = (await events.streamVersion(sourceStream)) + 1;

    const taskTypes = async (id: string) => (await events.readStream(streams.task(id))).map((e) => e.type);
    const finished = async (id: string) => {
      const types = await taskTypes(id);
      return types.includes('TaskSucceeded') || types.includes('TaskFailed');
    };
    const targetKeys = new Map<string, string>();
    const targetKey = async (taskId: string) => {
      if (!targetKeys.has(taskId)) {
        const [requested] = await events.readStream(streams.task(taskId), 0, 1);
        targetKeys.set(taskId, (requested!.data as { target: { key: string } }).target.key);
      }
      return targetKeys.get(taskId)!;
    };

    // Copies write slowly: every append to a target (an environment stream other than the source's) waits;
    // the copy `spanning` writes its first batch, then waits for `release`.
    const released = new Promise<void>((r) => (release = r));
    let spanningBatches = 0;
    const append = events.append.bind(events);
    events.append = async (streamId, batch, expected) => {
      if (streamId.startsWith('env-') && streamId !== sourceStream) {
        const key = await targetKey(batch[0]!.metadata.correlationId!);
        if (key === 'spanning' && spanningBatches > 0) await released;
        else await sleep(SLOW_TARGET_APPEND_MS);
        const result = await append(streamId, batch, expected);
        if (key === 'spanning') spanningBatches += 1;
        return result;
      }
      return append(streamId, batch, expected);
    };

    const tasks = new Map<string, string>();
    const requestCopy = async (key: string) => {
      const r = await admin.post(`${PATH}/copy/async`, { target_env: { new: { key, name: key } }, scope: { facts: true } });
      expect(r.status).toBe(202);
      tasks.set(key, r.body.task_id as string);
      return r.body.task_id as string;
    };

    // `spanning` is under way (one batch written) when the broker dies.
    const spanning = await requestCopy('spanning');
    await until('the copy `spanning` to write its first batch', async () => (spanningBatches > 0 ? true : undefined), 60_000, 10);
    await serverScript('kafka', 'kill');
    // A copy requested while the broker is down is stored in the log; the relay publishes it once the broker is back.
    await requestCopy('during');
    // `spanning` finishes with the broker down (the log is not on Kafka): its acknowledgement cannot be committed.
    release();
    await until('the copy `spanning` to finish with the broker down', async () => ((await finished(spanning)) ? true : undefined), 60_000);
    // The broker's restart takes long enough for the idle consumer to give up its retries, crash and restart.
    await serverScript('kafka', 'restart');
    await requestCopy('after');

    for (const [key, id] of tasks) {
      const done = await until(
        `copy ${key} to finish`,
        async () => {
          const r = await admin.get(`${PATH}/copy/async/${id}/result?wait=10`);
          return r.body.status === 'processing' ? undefined : r.body;
        },
        180_000,
        10,
      );
      expect({ key, status: done.status, error: done.error }).toEqual({ key, status: 'success', error: null });
      const types = await taskTypes(id);
      expect({
        key,
        succeeded: types.filter((t) => t === 'TaskSucceeded').length,
        failed: types.filter((t) => t === 'TaskFailed').length,
      }).toEqual({ key, succeeded: 1, failed: 0 });
      // The target holds every source event once, in order.
      const copied = await events.readStream(streams.environment(done.result.id as string));
      expect({ key, events: copied.length }).toEqual({ key, events: sourceLength });
      expect(copied.every((e, n) => parseCausation(e.metadata.causationId)?.version === n)).toBe(true);
    }

    // One environment per copy, and each holds what the source holds.
    const keys = ((await admin.get('/v2/projects/default/envs')).body as Array<{ key: string }>).map((e) => e.key).sort();
    expect(keys).toEqual([...tasks.keys(), 'production'].sort());
    const instances = async (environment: string) =>
      (await admin.get(`/v2/facts/default/${environment}/resource_instances?include_total_count=true&per_page=1`)).body
        .total_count as number;
    const expected = await instances('production');
    for (const key of tasks.keys()) expect({ key, instances: await instances(key) }).toEqual({ key, instances: expected });
  });
});
