import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, memoryOf, ROOT, spawnNode, waitForOk, type Memory, type NodeChild } from './child';
import { HttpClient } from './http';

export const ADMIN_KEY = 'bench-admin-key-0123456789';

export interface ServiceOptions {
  /** Reuse a data directory (restart); otherwise a fresh one under the OS temp dir. */
  dataDir?: string;
  /** Remove `dataDir` on stop as if it had been made here (a restart of a service that would have). */
  ownsDataDir?: boolean;
  /** Listen on this port (a restart, so that clients bound to the URL keep working); otherwise a free one. */
  port?: number;
  /** Write a V8 CPU profile of the server into this directory when it stops. */
  cpuProfileDir?: string;
  /** Extra environment for the server. */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** NODE_OPTIONS for the server process. */
  nodeOptions?: string | null;
}

export interface RunningService {
  url: string;
  dataDir: string;
  child: NodeChild;
  admin: HttpClient;
  /** From spawning the process to `/readyz` answering 200. */
  readyAfterMs: number;
  /** performance.now() (this process) when the server process was spawned: the origin of its CPU profile, near enough. */
  spawnedAt: number;
  memory(): Memory | null;
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** What `npm start` and the image set around the service (README, "Every core: the projection thread"): the bench runs it so too. */
export function npmStartEnv(): Record<string, string> {
  return { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
}

let built = false;

/**
 * `npm run build`, once per bench process, as `npm start` does before it runs
 * `node dist/main.js`. The service the bench times is that build: run from
 * TypeScript, every process and thread it starts (the projection thread, the
 * HTTP workers) compiles its modules again, which the cold-start row would
 * count and a user never pays.
 */
function buildOnce(): void {
  if (built) return;
  const started = performance.now();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  console.error(`[bench] npm run build: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  built = true;
}

/**
 * Our service as `npm start` runs it (`npm run build`, then dist/main.js, embedded engines), in its own
 * process on a free loopback port, with a fresh data directory unless told
 * otherwise. Writes wait for the read models for up to two minutes, so the
 * fan-out scenario can time one write until everything it derives is visible.
 */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'rebac-bench-'));
  const port = options.port ?? (await freePort());
  const nodeArgs: string[] = [];
  if (options.cpuProfileDir) {
    mkdirSync(options.cpuProfileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
  }
  buildOnce();
  const spawnedAt = performance.now();
  const child = spawnNode(
    'dist/main.js',
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'warn',
      READ_YOUR_WRITES_TIMEOUT_MS: '120000',
      MAX_BODY_BYTES: String(8 * 1024 * 1024),
      ...npmStartEnv(),
      ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}),
      ...options.env,
    },
    nodeArgs,
  );
  const url = `http://127.0.0.1:${port}`;
  const readyAfterMs = await waitForOk(`${url}/readyz`, child, options.readyTimeoutMs ?? 120_000);
  return {
    url,
    dataDir,
    child,
    admin: new HttpClient(url, ADMIN_KEY),
    readyAfterMs,
    spawnedAt,
    memory: () => memoryOf(child.pid),
    async stop({ keepData = false } = {}) {
      await child.stop();
      if (!keepData && (!options.dataDir || options.ownsDataDir)) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The run's `--server-node-options` and, under `--profile`, a CPU profile directory of the
 * scenario's own (`<profile dir>/<name>`), for a scenario's startService: every service a
 * scenario starts honours both flags.
 */
export function runOptions(
  options: { profileDir: string | null; serverNodeOptions: string | null },
  name: string,
): Pick<ServiceOptions, 'nodeOptions' | 'cpuProfileDir'> {
  return { nodeOptions: options.serverNodeOptions, cpuProfileDir: options.profileDir ? `${options.profileDir}/${name}` : undefined };
}

/** An environment-scoped key for `default/production` (what `/allowed` and the facts API take). */
export async function environmentKey(admin: HttpClient): Promise<HttpClient> {
  const created = await admin.ok('POST', '/v2/api-key', {
    project_id: 'default',
    environment_id: 'production',
    object_type: 'env',
    name: 'bench',
  });
  return admin.withKey(created.secret as string);
}

/** Stops `ctx.service` keeping its data and starts it again on it and on its port with `env` (and the run's profiling options). */
export async function restartService(
  ctx: { service: RunningService; options: { profileDir: string | null; serverNodeOptions: string | null } },
  env: Record<string, string>,
): Promise<void> {
  const dataDir = ctx.service.dataDir;
  await ctx.service.stop({ keepData: true });
  ctx.service = await startService({
    dataDir,
    port: Number(new URL(ctx.service.url).port),
    ownsDataDir: true,
    env,
    cpuProfileDir: ctx.options.profileDir ? `${ctx.options.profileDir}/main` : undefined,
    nodeOptions: ctx.options.serverNodeOptions,
  });
}
