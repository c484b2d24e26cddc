import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../shared/config';
import type { MetricsSnapshot } from '../shared/metrics/metrics';
import { CHECK_WORKER_ENV, type FromCheckWorker, type ToCheckWorker, type WorkerOperation } from './check-worker';
import { readFirstBytes, requestLine } from './first-request';
import type { HeldPort } from './held-port';
import { StartupRefused } from './startup-refused';

/** How long a check worker may take to open the read models and say it is ready. */
const START_TIMEOUT_MS = 30_000;
/** How long a scrape of /metrics waits for a check worker's metrics. */
const METRICS_TIMEOUT_MS = 1_000;
/** Pause before a check worker that died is started again (a crash loop must not spin). */
const RESPAWN_DELAY_MS = 1_000;
/**
 * How long the front door waits for a connection's first bytes before it serves the connection
 * here anyway (where the HTTP server's own timeouts then apply to a client that sends nothing).
 */
const FIRST_BYTES_TIMEOUT_MS = 5_000;

/**
 * How many processes answer HTTP in the one-process service (HTTP_WORKERS): `auto` is one per
 * core, but one where a check worker cannot follow the read models exactly (not SQLite) or where
 * a per-key rate limit is set (each process keeps its own buckets, so N processes would let a
 * key make N times the rate: set HTTP_WORKERS explicitly to accept that).
 */
export function httpWorkerCount(config: Config): number {
  const sqlite = config.READ_MODEL_STORE === 'sqlite' && config.EVENT_STORE === 'sqlite';
  if (config.HTTP_WORKERS === 'auto') return sqlite && config.RATE_LIMIT_PER_KEY_RPS === 0 ? availableParallelism() : 1;
  if (config.HTTP_WORKERS > 1 && !sqlite) {
    throw new StartupRefused(
      `HTTP_WORKERS=${config.HTTP_WORKERS} needs the SQLite event log and read models (EVENT_STORE=sqlite, READ_MODEL_STORE=sqlite): check workers read their files`,
    );
  }
  return config.HTTP_WORKERS;
}

export interface FrontDoor {
  /** The port clients connect to. */
  readonly port: number;
  /** The check workers' process ids (tests, and an operator reading the log). */
  workerPids(): number[];
  /** The live workers' metrics (one that does not answer within a second is left out of this scrape). */
  workerMetrics(): Promise<MetricsSnapshot[]>;
  /** Stops accepting, then stops the check workers once their requests are answered. */
  close(): Promise<void>;
}

/**
 * The public listener of a service with several HTTP workers: it accepts every connection and
 * reads its first request line. A connection that begins with a permission check goes to the
 * next process in turn: this one or one of `count` check workers (app/check-worker.ts), which
 * answer checks themselves and forward anything else that comes on the connection later to
 * `upstreamPort`, this process's own loopback listener. Any other connection (a write, a list,
 * the console) is served here: sent to a worker, each of its requests would cost a second HTTP
 * exchange over loopback. A worker that dies is left out of the turn and started again; its
 * connections are lost (clients reconnect).
 *
 * `serveHere` takes the socket with the bytes already read from it; `answersHere` says which
 * operation this process's API answers a request with (the workers serve some of them).
 */
export async function openFrontDoor(
  config: Config,
  door: HeldPort,
  logger: Logger,
  count: number,
  upstreamPort: number,
  serveHere: (socket: Socket, firstBytes: Buffer) => void,
  answersHere: (method: string, path: string) => WorkerOperation | undefined,
): Promise<FrontDoor> {
  const workers: Array<ChildProcess | null> = new Array<ChildProcess | null>(count).fill(null);
  let closing = false;
  let turn = 0;
  const liveWorkers = () => workers.filter((w): w is ChildProcess => w !== null && w.connected);

  /** `method path` of the operations the workers serve (every worker serves the same), known once one is ready. */
  let servedByWorkers = new Set<string>();
  const spawn = async (index: number): Promise<void> => {
    const child = forkWorker(config, index, upstreamPort);
    try {
      servedByWorkers = new Set((await readyOrExit(child)).map(operationKey));
    } catch (error) {
      logger.error({ err: error, worker: index }, 'check worker did not start');
      child.kill('SIGKILL');
      if (!closing) setTimeout(() => void spawn(index), RESPAWN_DELAY_MS).unref();
      return;
    }
    if (closing) {
      child.kill('SIGTERM');
      return;
    }
    workers[index] = child;
    child.once('exit', (code, signal) => {
      workers[index] = null;
      if (closing) return;
      logger.error({ worker: index, pid: child.pid, code, signal }, 'check worker exited; starting another');
      setTimeout(() => void spawn(index), RESPAWN_DELAY_MS).unref();
    });
  };
  await Promise.all(workers.map((_, index) => spawn(index)));

  /** True if the request a connection begins with is a check a worker serves. */
  const beginsWithCheck = (firstBytes: Buffer): boolean => {
    const line = requestLine(firstBytes);
    const operation = line ? answersHere(line.method.toLowerCase(), line.path) : undefined;
    return operation !== undefined && servedByWorkers.has(operationKey(operation));
  };
  const route = async (socket: Socket): Promise<void> => {
    const first = await readFirstBytes(socket, FIRST_BYTES_TIMEOUT_MS);
    if (first === null) return void socket.destroy();
    const live = liveWorkers();
    // A socket that could not be stopped reading stays here (sent away, what it read next would be lost).
    if (!first.stopped || live.length === 0 || !beginsWithCheck(first.bytes)) return serveHere(socket, first.bytes);
    // Round robin of the checks' connections over this process and the live workers.
    const pick = turn++ % (live.length + 1);
    if (pick === live.length) return serveHere(socket, first.bytes);
    // Until it is sent (a hand-over may wait for the last one's acknowledgement), no listener would take an error.
    socket.once('error', () => socket.destroy());
    live[pick]!.send({ connection: first.bytes.toString('base64') } satisfies ToCheckWorker, socket, (error) => {
      // The worker went away between the pick and the hand-over: the socket is still ours.
      if (error && !socket.destroyed) serveHere(socket, first.bytes);
    });
  };
  door.serve((socket) => void route(socket));
  const { port } = door;
  logger.info({ workers: count + 1, pids: workers.map((w) => w?.pid) }, 'check workers started');

  let asked = 0;
  const metricsOf = (child: ChildProcess) =>
    new Promise<MetricsSnapshot | null>((resolve) => {
      const id = ++asked;
      const answered = (message: FromCheckWorker) => {
        if (typeof message !== 'object' || !('metrics' in message) || message.metrics !== id) return;
        done(message.values);
      };
      const timer = setTimeout(() => done(null), METRICS_TIMEOUT_MS);
      const done = (values: MetricsSnapshot | null) => {
        clearTimeout(timer);
        child.off('message', answered);
        resolve(values);
      };
      child.on('message', answered);
      child.send({ metrics: id } satisfies ToCheckWorker, (error) => error && done(null));
    });

  return {
    port,
    workerPids: () => workers.flatMap((w) => (w?.pid === undefined ? [] : [w.pid])),
    async workerMetrics() {
      return (await Promise.all(liveWorkers().map(metricsOf))).filter((m): m is MetricsSnapshot => m !== null);
    },
    async close() {
      closing = true;
      await door.close();
      await Promise.all(workers.flatMap((w) => (w ? [stopWorker(w)] : [])));
    },
  };
}

function forkWorker(config: Config, index: number, upstreamPort: number): ChildProcess {
  // Run from the sources (tests, the bench) the worker needs the same TypeScript loader; built, plain node.
  const typescript = extname(__filename) === '.ts';
  return fork(join(__dirname, `check-worker${extname(__filename)}`), [], {
    execArgv: typescript ? ['-r', '@swc-node/register'] : process.execArgv,
    env: {
      ...process.env,
      [CHECK_WORKER_ENV.config]: JSON.stringify(config),
      [CHECK_WORKER_ENV.upstreamPort]: String(upstreamPort),
      [CHECK_WORKER_ENV.index]: String(index + 1),
    },
  });
}

const operationKey = (operation: WorkerOperation) => `${operation.method} ${operation.path}`;

/** Resolves with the operations the worker serves once it says it is ready. */
function readyOrExit(child: ChildProcess): Promise<WorkerOperation[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    child.on('message', (message: FromCheckWorker) => {
      if (typeof message !== 'object' || !('ready' in message)) return;
      clearTimeout(timer);
      resolve(message.ready);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (code ${code}, signal ${signal}) before it was ready`));
    });
  });
}

/** Asks a worker to finish its requests and exit; kills it if it has not within the shutdown window. */
async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send('stop' satisfies ToCheckWorker);
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  await exited;
  clearTimeout(timer);
}
