import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cpuSecondsOf, freePort, ROOT } from './child';

const run = promisify(execFile);

/** One of the servers the distributed deployment runs on, with what the bench reads of it. */
export interface ServerProcess {
  /** The server's process (the PostgreSQL postmaster, the FerretDB binary, Kafka's JVM). */
  pid: number;
  /** CPU time of the process and its children (PostgreSQL's backends), in seconds so far. */
  cpuSeconds(): number;
}

export interface DistributedServers {
  postgresUrl: string;
  mongoUrl: string;
  /** One broker per deployment (see startDistributedServers). */
  kafkaBrokers: string[];
  postgres: ServerProcess;
  ferretdb: ServerProcess;
  kafka: ServerProcess[];
  stop(): Promise<void>;
}

/**
 * PostgreSQL, FerretDB and `kafkas` Kafka brokers, started by the project's scripts
 * (scripts/postgres.sh, ferretdb.sh, kafka.sh: the servers .ci/e2e.sh runs, installed by
 * `scripts/test-servers.sh install`), each on a free port and in a run directory of the bench's
 * own, so a bench never meets the test servers another run may have on their default ports.
 * Stopped, their data deleted, by `stop`.
 *
 * A broker per deployment: two deployments on one broker, even with topics of their own
 * (KAFKA_TOPIC_PREFIX), share the task service's consumer group (`task-service`), and Kafka then
 * hands one deployment's task partitions to the other's task service, which never runs them.
 */
export async function startDistributedServers(kafkas: number, log: (message: string) => void): Promise<DistributedServers> {
  const runDir = mkdtempSync(join(tmpdir(), 'rebac-bench-servers-'));
  // mkdtemp makes it 0700; as root, scripts/postgres.sh runs PostgreSQL as the `postgres` user, who must get through it.
  chmodSync(runDir, 0o755);
  const started: Array<{ name: string; env: NodeJS.ProcessEnv }> = [];
  const script = (name: string, command: string, env: NodeJS.ProcessEnv) =>
    run('bash', [join(ROOT, 'scripts', `${name}.sh`), command], { cwd: ROOT, env });
  const stop = async () => {
    for (const { name, env } of started.reverse())
      await script(name, 'stop', env).catch((error: unknown) => log(`${name}.sh stop: ${String(error)}`));
    rmSync(runDir, { recursive: true, force: true });
  };
  /** Starts one server in `dir` (under the run directory) and returns the KEY=value lines it printed. */
  const start = async (name: string, dir: string, ports: Record<string, number>) => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const env: NodeJS.ProcessEnv = { ...process.env, SERVERS_RUN_DIR: dir, POSTGRES_DATABASES: 'rebac' };
    for (const [key, port] of Object.entries(ports)) env[key] = String(port);
    log(`starting ${name} (scripts/${name}.sh, run dir ${dir})`);
    started.push({ name, env });
    return (await script(name, 'start', env)).stdout;
  };
  const setting = (output: string, key: string) => {
    const value = new RegExp(`^${key}=(\\S+)$`, 'm').exec(output)?.[1];
    if (!value) throw new Error(`the server scripts printed no ${key}: ${output}`);
    return value;
  };
  const server = (pidFile: string): ServerProcess => {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    return { pid, cpuSeconds: () => cpuSecondsOf(pid) ?? NaN };
  };
  try {
    const postgres = await start('postgres', runDir, { POSTGRES_PORT: await freePort() });
    const ferretdb = await start('ferretdb', runDir, { FERRETDB_PORT: await freePort() });
    const brokers: string[] = [];
    const kafka: ServerProcess[] = [];
    for (let i = 0; i < kafkas; i++) {
      const dir = join(runDir, `kafka-${i}`);
      brokers.push(
        setting(await start('kafka', dir, { KAFKA_PORT: await freePort(), KAFKA_CONTROLLER_PORT: await freePort() }), 'KAFKA_BROKERS'),
      );
      kafka.push(server(join(dir, 'kafka', 'kafka.pid')));
    }
    return {
      postgresUrl: setting(postgres, 'POSTGRES_URL'),
      mongoUrl: setting(ferretdb, 'MONGODB_URL'),
      kafkaBrokers: brokers,
      postgres: server(join(runDir, 'postgres', 'data', 'postmaster.pid')),
      ferretdb: server(join(runDir, 'ferretdb', 'ferretdb.pid')),
      kafka,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
