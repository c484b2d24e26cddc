import { streams } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';
import { firstHostOf } from '../../shared/testing/tcp-proxy';
import { parseCausation } from '../../task-service/copy/remap';
import { Cluster, type ServiceProcess } from '../support/cluster';
import { rebuild, snapshot } from '../distributed/support/read-models';
import { ApiClient, loadFolderFileExample } from '../support/embedded-server';
import { bulkAllowed, checksOfFiles, countWrites, freshServiceOn, readWholeLog, storedWrites } from './support/log-audit';
import { sleep, until } from '../support/until';
import { ensureRunning, expectManagedServer, serverScript } from './support/servers';
import { statusCounts, WriteLoad, type WriteAttempt } from './support/write-load';

/**
 * The distributed deployment with every process doubled, on real servers only (the event log on
 * the PostgreSQL at POSTGRES_URL with a synchronous streaming standby, read models on FerretDB,
 * tasks on Kafka: what .ci/e2e.sh starts through scripts/, which this test kills, restarts and
 * fails over): two command-service replicas (the load talks to both), two projection services
 * (one active, one standing by under the lease) and two task services (sharing the task topic;
 * the relay under its lease). Under a load of writes and checks, with copies under way, one fault
 * after the other: a command-service replica, the active projection service and a task service
 * killed (SIGKILL) and restarted; PostgreSQL restarted with `-m immediate` (a crash); the primary
 * killed and the standby promoted, the services carrying on through their host list. After each:
 * every acknowledged write is in the log exactly once and none is there twice, the read models
 * equal a rebuild from the log, both replicas answer checks as a fresh one-process service fed the
 * same log does, and every copy succeeded exactly once. Needs POSTGRES_URL; skipped without it.
 */
jest.setTimeout(240_000);

const postgresUrl = process.env.POSTGRES_URL;
/**
 * Each append of a copy to its target waits this long in the task services, so a kill lands
 * mid-copy: the copies here are one or two appends, and a poll of a loaded host can take a second.
 */
const SLOW_COPY_APPEND_MS = '3000';

let cluster: Cluster;
let commands: ServiceProcess[] = [];
let projections: ServiceProcess[] = [];
let tasks: ServiceProcess[] = [];
let envKey: string;
let environmentStream: string;
let sourceStream: string;
let load: WriteLoad | null = null;
/** Every write of every phase: the log must hold each acknowledged one once, whatever came after. */
const allWrites: WriteAttempt[] = [];
/** Every copy requested, by its target's key. */
const copies = new Map<string, string>();
const summary: string[] = [];

/** Where the scenario is, as it goes (jest shows a file's console only at its end; a hang needs to say where). */
const progress = (what: string) => process.stderr.write(`[distributed-crashes ${new Date().toISOString().slice(11, 23)}] ${what}\n`);

const admin = (replica: number) => new ApiClient(commands[replica]!.url, cluster.adminKey);
const envClients = () => commands.map((c) => new ApiClient(c.url, envKey));
interface Readiness {
  role?: string;
  position?: number;
}
const readyz = (service: ServiceProcess): Promise<Readiness> =>
  fetch(`${service.url}/readyz`).then(
    (r) => r.json() as Promise<Readiness>,
    () => ({}),
  );

(postgresUrl ? describe : describe.skip)('two of every service on PostgreSQL, FerretDB and Kafka, through crashes and a failover', () => {
  beforeAll(async () => {
    for (const server of ['postgres', 'ferretdb', 'kafka'] as const) await expectManagedServer(server);
    cluster = Cluster.fromEnvironment();
    // The log's database exists before the base backup (it would reach the standby by replication anyway).
    await (await cluster.openEventLog()).close();
    const standby = /POSTGRES_STANDBY_PORT=(\d+)/.exec(await serverScript('postgres', 'standby'))?.[1];
    if (!standby) throw new Error('scripts/postgres.sh standby printed no POSTGRES_STANDBY_PORT');
    const primary = firstHostOf(postgresUrl!);
    cluster.useEventLogHosts(`${primary.host}:${primary.port},127.0.0.1:${standby}`);

    projections = [await cluster.start('projection'), await cluster.start('projection')];
    const slowCopies = { tsEntry: 'test/distributed/support/slow-task-service.ts', env: { SLOW_ENV_APPEND_MS: SLOW_COPY_APPEND_MS } };
    tasks = await Promise.all([cluster.start('task', slowCopies), cluster.start('task', slowCopies)]);
    commands = [await cluster.start('command'), await cluster.start('command')];

    const env = await admin(0).environmentClient();
    envKey = env.key;
    await loadFolderFileExample(env);
    const created = await admin(1).post('/v2/projects/default/envs', { key: 'source', name: 'Source' });
    expect(created.status).toBe(200);
    const source = await admin(1).environmentClient('default', 'source');
    await loadFolderFileExample(source, '/v2/schema/default/source', '/v2/facts/default/source');
    const environments = (await admin(0).get('/v2/projects/default/envs')).body as Array<{ key: string; id: string }>;
    environmentStream = streams.environment(environments.find((e) => e.key === 'production')!.id);
    sourceStream = streams.environment(environments.find((e) => e.key === 'source')!.id);
  });

  afterAll(async () => {
    await load?.stop();
    if (summary.length > 0) console.log(`distributed crashes and failover:\n${summary.join('\n')}`);
    // The primary commits alone again and runs, for the tests after this one, whatever happened here.
    await serverScript('postgres', 'standby-stop').catch((error: Error) => console.error(error.message));
    await ensureRunning('postgres');
    await cluster?.destroy();
  });

  /** Starts the load and `count` copies (on the replicas in turn), lets `fault` in once it runs, and sees it go on after. */
  const underLoad = async (phase: string, fault: () => Promise<void>, copyCount = 2, recoveryMs = 60_000): Promise<WriteLoad> => {
    load = new WriteLoad(envClients, phase).start();
    try {
      await load.acknowledgedMore(15);
      for (let i = 0; i < copyCount; i++) await requestCopy(`${phase}-copy-${i}`, i % 2);
      progress(`${phase}: load and copies under way; the fault`);
      await fault();
      progress(`${phase}: fault done; waiting for writes to be acknowledged again`);
      // The deployment carries on: writes are acknowledged again.
      await load.acknowledgedMore(15, recoveryMs);
    } catch (error) {
      const answers = statusCounts(load.writes.map((w) => w.status));
      throw new Error(`${(error as Error).message}\nthe load's writes: ${answers}\n${servicesOutput()}`, { cause: error });
    } finally {
      await load.stop();
    }
    return load;
  };

  /** The last lines each running service wrote, for a failure's message. */
  const servicesOutput = () =>
    [...commands, ...projections, ...tasks]
      .map((s) => `--- ${s.kind} service ${s.url}:\n${s.output().split('\n').slice(-15).join('\n')}`)
      .join('\n');

  const requestCopy = async (key: string, replica: number) => {
    const r = await admin(replica).post('/v2/projects/default/envs/source/copy/async', {
      target_env: { new: { key, name: key } },
      scope: { facts: true },
    });
    expect({ key, status: r.status }).toEqual({ key, status: 202 });
    copies.set(key, r.body.task_id as string);
  };

  const taskTypes = async (events: EventStore, id: string) => (await events.readStream(streams.task(id))).map((e) => e.type);

  /** Every check the after-checks make: each replica answers what a fresh one-process service fed the log answers. */
  const after = async (phase: string, phaseLoad: WriteLoad) => {
    progress(`${phase}: after-checks`);
    allWrites.push(...phaseLoad.writes);
    // Nothing answered 500: a refused write is a 503 (or no answer, from a killed replica).
    expect(phaseLoad.writes.filter((w) => w.status !== 200 && w.status !== 503 && w.status !== 'network')).toEqual([]);
    const badChecks = phaseLoad.checks.filter((c) => c.status !== 'network' && (c.status !== 200 || c.allow !== true));
    expect(badChecks).toEqual([]);

    const events = await cluster.openEventLog();
    try {
      for (const [key, id] of copies) {
        const done = await until(
          `copy ${key} to finish`,
          async () => {
            const r = await admin(0).get(`/v2/projects/default/envs/source/copy/async/${id}/result?wait=10`);
            return r.status === 200 && r.body.status !== 'processing' ? r.body : undefined;
          },
          120_000,
        );
        expect({ key, status: done.status, error: done.error }).toEqual({ key, status: 'success', error: null });
        const types = await taskTypes(events, id);
        const succeeded = types.filter((t) => t === 'TaskSucceeded').length;
        const failed = types.filter((t) => t === 'TaskFailed').length;
        expect({ key, succeeded, failed }).toEqual({ key, succeeded: 1, failed: 0 });
        // The target holds every source event once, in order: no copy ran twice, none half.
        const copied = await events.readStream(streams.environment(done.result.id as string));
        expect({ key, events: copied.length }).toEqual({ key, events: (await events.streamVersion(sourceStream)) + 1 });
        expect(copied.every((e, n) => parseCausation(e.metadata.causationId)?.version === n)).toBe(true);
      }

      progress(`${phase}: copies checked`);
      const head = await events.headPosition();
      const active = await until('a projection service to be active at the head', async () => {
        for (const p of projections) {
          const r = await readyz(p);
          if (r.role === 'active' && (r.position ?? 0) >= head) return p;
        }
        return undefined;
      });
      const log = await readWholeLog(events);
      const stored = storedWrites(log, environmentStream);
      const inPhase = countWrites(phaseLoad.writes, stored);
      const overall = countWrites(allWrites, stored);
      summary.push(
        `  ${phase}: writes ${inPhase.attempted} (${statusCounts(phaseLoad.writes.map((w) => w.status))}), acknowledged ${inPhase.acknowledged}, ` +
          `found ${inPhase.found}, duplicates ${inPhase.duplicates.length}, unacknowledged but stored ${inPhase.unacknowledgedStored}; ` +
          `checks ${statusCounts(phaseLoad.checks.map((c) => c.status))}; copies so far ${copies.size}; log ${log.length} events`,
      );
      expect({ missing: overall.missing, duplicates: overall.duplicates }).toEqual({ missing: [], duplicates: [] });
      expect(overall.found).toBe(overall.acknowledged);

      progress(`${phase}: log checked; rebuilding the read models`);
      // The read models equal a rebuild from the log: no event lost, none applied twice.
      expect(await rebuild(cluster)).toBe(head);
      expect((await readyz(active)).position).toBe(head);
      const live = nonEmpty(await snapshot(cluster.mongoUrl, cluster.database));
      const rebuilt = nonEmpty(await snapshot(cluster.mongoUrl, `${cluster.database}_rebuild`));
      expect(Object.keys(live)).toEqual(Object.keys(rebuilt));
      for (const name of Object.keys(live)) expect({ name, docs: live[name] }).toEqual({ name, docs: rebuilt[name] });

      // Checks: both replicas answer as a fresh one-process service fed the same log does, and as the acknowledgements
      // say, for this phase's files and the last of the earlier ones (every check is a scan on FerretDB).
      const earlier = [...new Set(allWrites.slice(0, allWrites.length - phaseLoad.writes.length).map((w) => w.file))].slice(-30);
      const files = [...new Set([...earlier, ...phaseLoad.writes.map((w) => w.file)])];
      const checks = checksOfFiles(files);
      progress(`${phase}: read models checked; a fresh one-process service on the log`);
      const fresh = await freshServiceOn(log, cluster.adminKey);
      try {
        const expected = await bulkAllowed(await fresh.api.environmentClient(), checks);
        for (const [replica, client] of envClients().entries())
          expect({ replica, answers: await bulkAllowed(client, checks) }).toEqual({ replica, answers: expected });
        const acknowledged = (kind: WriteAttempt['kind']) =>
          new Set(allWrites.filter((w) => w.kind === kind && w.status === 200).map((w) => w.file));
        const [tuples, assignments] = [acknowledged('tuple'), acknowledged('assignment')];
        files.forEach((file, i) => {
          if (tuples.has(file)) expect({ file, aliceWrites: expected[3 * i] }).toEqual({ file, aliceWrites: true });
          if (assignments.has(file)) expect({ file, viewerReads: expected[3 * i + 1] }).toEqual({ file, viewerReads: true });
          expect({ file, viewerWrites: expected[3 * i + 2] }).toEqual({ file, viewerWrites: false });
        });
      } finally {
        await fresh.dispose();
      }
    } finally {
      await events.close();
    }
  };

  it('a command-service replica killed (SIGKILL) mid-writes and restarted', async () => {
    const phaseLoad = await underLoad('command', async () => {
      await commands[0]!.kill9();
      await sleep(1000);
      commands[0] = await cluster.start('command');
    });
    expect(phaseLoad.writes.filter((w) => w.replica === 0 && w.status === 'network').length).toBeGreaterThan(0);
    await after('command replica killed', phaseLoad);
  });

  it('the active projection service killed mid-writes: the standby takes over, the restarted one stands by', async () => {
    const roles = async () => Promise.all(projections.map(async (p) => (await readyz(p)).role));
    const phaseLoad = await underLoad('projection', async () => {
      const activeIndex = (await roles()).indexOf('active');
      expect(activeIndex).toBeGreaterThanOrEqual(0);
      await projections[activeIndex]!.kill9();
      const standby = projections[1 - activeIndex]!;
      await until('the standby projection service to take over', async () =>
        (await readyz(standby)).role === 'active' ? true : undefined,
      );
      projections[activeIndex] = await cluster.start('projection');
    });
    expect((await roles()).sort()).toEqual(['active', 'standby']);
    await after('active projection killed', phaseLoad);
  });

  it('a task service killed (SIGKILL) mid-copy: the other one finishes the copies, then it restarts', async () => {
    const phaseLoad = await underLoad(
      'task',
      async () => {
        const events = await cluster.openEventLog({ pollIntervalMs: 20 });
        try {
          const phaseCopies = [...copies].filter(([key]) => key.startsWith('task-')).map(([, id]) => id);
          // Killed while a copy is started and not finished (not merely started: on a loaded host a poll
          // can come round after a small copy has already ended, and the kill would test nothing).
          await until(
            'a copy to be under way',
            async () => {
              for (const id of phaseCopies) {
                const types = await taskTypes(events, id);
                if (types.includes('TaskStarted') && !types.includes('TaskSucceeded') && !types.includes('TaskFailed')) return true;
              }
              return undefined;
            },
            60_000,
            10,
          );
          await tasks[0]!.kill9();
          let unfinished = 0;
          for (const id of phaseCopies) {
            const types = await taskTypes(events, id);
            if (!types.includes('TaskSucceeded') && !types.includes('TaskFailed')) unfinished += 1;
          }
          expect(unfinished).toBeGreaterThan(0);
          summary.push(`  task service killed with ${unfinished} of ${phaseCopies.length} copies unfinished`);
          // The survivor gets the dead one's partitions (after the Kafka session timeout) and finishes every copy.
          for (const id of phaseCopies)
            await until(`copy ${id} to finish without the killed task service`, async () => {
              const types = await taskTypes(events, id);
              return types.includes('TaskSucceeded') || types.includes('TaskFailed') ? true : undefined;
            });
          tasks[0] = await cluster.start('task', tasks[0]!.options);
        } finally {
          await events.close();
        }
      },
      3,
    );
    await after('task service killed', phaseLoad);
  });

  it('PostgreSQL restarted with -m immediate (a crash) mid-writes', async () => {
    const phaseLoad = await underLoad('pg-restart', async () => {
      await serverScript('postgres', ['restart', '-m', 'immediate']);
    });
    await after('PostgreSQL restarted -m immediate', phaseLoad);
  });

  it('failover: the primary killed mid-writes, the synchronous standby promoted, the services carry on against it', async () => {
    const phaseLoad = await underLoad(
      'failover',
      async () => {
        await serverScript('postgres', 'kill');
        // No host takes writes while the standby is read-only: writes under way fail, new ones wait or are refused.
        await sleep(2000);
        await serverScript('postgres', 'promote');
      },
      2,
      120_000,
    );
    await after('primary killed, standby promoted', phaseLoad);
  });
});

function nonEmpty<T>(collections: Record<string, T[]>): Record<string, T[]> {
  return Object.fromEntries(Object.entries(collections).filter(([, docs]) => docs.length > 0));
}
