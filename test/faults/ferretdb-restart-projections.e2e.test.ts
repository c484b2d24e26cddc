import { randomUUID } from 'node:crypto';
import { CURRENT_SCHEMA_VERSION } from '../../shared/events';
import { Cluster, type ServiceProcess } from '../support/cluster';
import { rebuild, snapshot } from '../distributed/support/read-models';
import { ApiClient, FACTS, loadFolderFileExample } from '../support/embedded-server';
import { sleep, until } from '../support/until';
import { ensureRunning, expectManagedServer, serverScript } from './support/servers';

/**
 * The MongoDB-protocol server dies (SIGKILL) while the projection service
 * applies a burst of writes, and comes back on its data 12 s later (longer
 * than the driver waits for a server, so batches applied meanwhile fail):
 * the command and projection services as processes (the log on PostgreSQL, or SQLite without POSTGRES_URL; read models
 * on the FerretDB at MONGODB_URL, which .ci/e2e.sh starts through
 * scripts/ferretdb.sh and this test kills and restarts). The projection
 * service rides it out in the same process (a failed batch is applied again),
 * the API refuses what it cannot do with 503, every write acknowledged is
 * shown, and the read models equal a rebuild from the log: no event lost,
 * none applied twice.
 */
jest.setTimeout(300_000);

/** How long the server stays down: more than the MongoDB driver's server selection timeout (10 s in MongoDocumentStore). */
const OUTAGE_MS = 12_000;

/**
 * The deployment of the distributed e2e test, with a lease that outlasts the
 * outage: a projection service that cannot renew its lease in time stops and
 * exits, by design, so that a standby takes over (docs/distributed.md, "Faults").
 */
class LongLeaseCluster extends Cluster {
  override env(): Record<string, string> {
    return { ...super.env(), LEASE_TTL_MS: '60000' };
  }
}

let cluster: Cluster;
let command: ServiceProcess;
let projection: ServiceProcess;
let env: ApiClient;

const check = (user: string, action: string, key: string) => ({
  user: { key: user },
  action,
  resource: { type: 'file', key, tenant: 'acme' },
});
const readyz = (service: ServiceProcess) =>
  fetch(`${service.url}/readyz`).then((r) => r.json() as Promise<{ role?: string; position?: number; startedFrom?: number }>);

beforeAll(async () => {
  await expectManagedServer('ferretdb');
  const mongo = process.env.MONGODB_URL;
  const kafka = process.env.KAFKA_BROKERS;
  if (!mongo || !kafka) throw new Error('MONGODB_URL and KAFKA_BROKERS must be set: run .ci/e2e.sh (or scripts/test-servers.sh start)');
  cluster = new LongLeaseCluster(mongo, kafka);
  projection = await cluster.start('projection');
  command = await cluster.start('command');
  env = await new ApiClient(command.url, cluster.adminKey).environmentClient();
  await loadFolderFileExample(env);
});

afterAll(async () => {
  await ensureRunning('ferretdb');
  await cluster?.destroy();
});

describe('the MongoDB-protocol server killed and restarted while projections run', () => {
  it('resumes the projections in the same process, loses no event and applies none twice', async () => {
    const startedFrom = (await readyz(projection)).startedFrom;
    const files = Array.from({ length: 60 }, (_, i) => `f${i}`);
    const statuses: number[] = [];
    const refused: string[] = [];
    /**
     * Writes stored in the burst: those acknowledged (200), and those a 503 refused after appending: such
     * an answer carries the position the write was stored at (the store failed while the write waited for
     * the read models to show it); one refused before the append carries none and stored nothing.
     */
    const stored = new Set<string>();
    /** What each write answered, in order (the burst's answer, then the retry's), for the failure message. */
    const answers = new Map<string, number[]>();
    const send = async (what: string, path: string, body: unknown, retry: boolean): Promise<boolean> => {
      const answer = await env.post(path, body);
      answers.set(what, [...(answers.get(what) ?? []), answer.status]);
      if (!retry) statuses.push(answer.status);
      if (!retry && (answer.status === 200 || (answer.status === 503 && answer.headers.get('x-event-position') !== null))) stored.add(what);
      // Retried: a write stored in the burst is there now (409: a file's instance, when its tuple was the write
      // refused, or a write stored despite its 503); any other is stored now (200).
      if (retry) return answer.status === (stored.has(what) ? 409 : 200);
      return answer.status === 200;
    };
    /** A file and its tuple to folder:docs; false if a write was refused (the tuple waits for its file). */
    const write = async (file: string, retry = false): Promise<boolean> =>
      (await send(`instance ${file}`, `${FACTS}/resource_instances`, { key: file, resource: 'file', tenant: 'acme' }, retry)) &&
      (await send(
        `tuple ${file}`,
        `${FACTS}/relationship_tuples`,
        { subject: 'folder:docs', relation: 'parent', object: `file:${file}` },
        retry,
      ));
    let next = 0;
    const writer = async () => {
      while (next < files.length) {
        const file = files[next++]!;
        if (!(await write(file))) refused.push(file);
      }
    };
    const burst = Promise.all(Array.from({ length: 8 }, writer));

    await until('a part of the burst to be written', async () => (statuses.length >= 30 ? true : undefined), 60_000, 5);
    await serverScript('ferretdb', 'kill');
    // An event reaches the log with the store down (as a write already past the API does), so a batch is surely
    // applied during the outage. No projection handles its type; the runner still saves its checkpoint.
    const events = await cluster.openEventLog();
    await events.append(`faults-${randomUUID()}`, [probe()], 'no_stream');
    const head = await events.headPosition();
    await events.close();
    // A read needs the store: refused with 503 once the driver gives up waiting for a server (not a 500).
    const [read] = await Promise.all([env.get(`${FACTS}/resource_instances`), sleep(OUTAGE_MS)]);
    expect({ status: read.status, error_code: read.body.error_code, reason: read.body.reason }).toEqual({
      status: 503,
      error_code: 'UNEXPECTED_ERROR',
      reason: 'SERVICE_UNAVAILABLE',
    });
    await serverScript('ferretdb', 'restart');

    // The same projection process went on: it saw batches fail and applies them again.
    expect(projection.process.exitCode).toBeNull();
    expect(projection.output()).toContain('projection batch failed; applying it again');
    await burst;
    await until('the projections to pass the event written during the outage', async () =>
      ((await readyz(projection)).position ?? 0) >= head ? true : undefined,
    );
    const ready = await readyz(projection);
    expect({ role: ready.role, startedFrom: ready.startedFrom }).toEqual({ role: 'active', startedFrom });

    // Writes were acknowledged (held ones waited for the projections to show them) or refused with 503, never 500.
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // A refused write stored nothing, unless its 503 said where it was stored: either way it is all there now.
    for (const file of refused) {
      const written = await write(file, true);
      expect({ file, written, answers: [answers.get(`instance ${file}`), answers.get(`tuple ${file}`)] }).toEqual({
        file,
        written: true,
        answers: expect.anything(),
      });
    }

    // Checks and lists answer from the resumed read models.
    for (const file of [files[0]!, files[29]!, files.at(-1)!, ...refused]) {
      expect({ file, allow: (await env.post('/allowed', check('alice', 'write', file))).body.allow }).toEqual({ file, allow: true });
      expect({ file, allow: (await env.post('/allowed', check('bob', 'read', file))).body.allow }).toEqual({ file, allow: false });
    }
    const listed = await env.get(`${FACTS}/resource_instances?include_total_count=true&per_page=1`);
    expect(listed.body.total_count).toBe(files.length + 2);

    // The read models equal a rebuild from scratch: no event was lost, none applied twice.
    const end = await rebuild(cluster);
    await until('the projection service to reach the head', async () =>
      ((await readyz(projection)).position ?? 0) >= end ? true : undefined,
    );
    const live = nonEmpty(await snapshot(cluster.mongoUrl, cluster.database));
    const rebuilt = nonEmpty(await snapshot(cluster.mongoUrl, `${cluster.database}_rebuild`));
    expect(Object.keys(live)).toEqual(Object.keys(rebuilt));
    for (const name of Object.keys(live)) expect({ name, docs: live[name] }).toEqual({ name, docs: rebuilt[name] });

    expect(await Promise.all([command.stop(), projection.stop()])).toEqual([0, 0]);
  });
});

/** An event of a type no projection handles, in a stream of its own. */
function probe() {
  return {
    type: 'FaultProbe',
    data: {},
    metadata: { actor: null, correlationId: 'faults', timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION },
  };
}

function nonEmpty<T>(collections: Record<string, T[]>): Record<string, T[]> {
  return Object.fromEntries(Object.entries(collections).filter(([, docs]) => docs.length > 0));
}
