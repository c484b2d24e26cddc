import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '../../app/data-dir-lock';
import { freePort, startChildServer, type ChildServer } from '../support/child-server';
import { startTestServer } from '../support/embedded-server';

const ROOT = join(__dirname, '..', '..');

/** Runs `npm start`'s entry point (main.ts) to its exit; resolves with its code and output lines. */
async function runToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; lines: string[] }> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', HOST: '127.0.0.1', ...env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, lines: output.split('\n').filter((l) => l.trim() !== '') };
}

const parsed = (line: string | undefined) => JSON.parse(line ?? 'null') as { level: number; msg: string; [field: string]: unknown };
const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number; host: string; started_at: string };

/** A pid that was a process of this host and is no more. */
function deadPid(): number {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(gone.stdout);
}

jest.setTimeout(90_000);

describe('one process per data directory', () => {
  let dataDir: string;
  let first: ChildServer | null = null;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rebac-lock-'));
  });
  afterEach(async () => {
    await first?.stop();
    first = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second start on a held data directory at once, in one line naming the holder; the first keeps serving', async () => {
    first = await startChildServer({ DATA_DIR: dataDir });
    const holder = lockOf(dataDir);
    expect(holder).toMatchObject({ pid: first.process.pid, host: hostname() });

    const started = Date.now();
    const second = await runToExit({ DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(second.lines).toHaveLength(1);
    const line = parsed(second.lines[0]);
    expect(line.level).toBe(60);
    expect(line.msg).toBe(
      `could not start: data directory ${dataDir} is in use by process ${holder.pid} on ${hostname()}, started ${holder.started_at}: stop it first (one process serves a data directory)`,
    );
    expect(line.holder).toEqual(holder);

    // The first is untouched: still serving, still the holder.
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    expect(lockOf(dataDir)).toEqual(holder);
  });

  it('releases the lock on a graceful stop, and a crash (SIGKILL) does not keep the next start out', async () => {
    first = await startChildServer({ DATA_DIR: dataDir });
    await first.stop();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

    first = await startChildServer({ DATA_DIR: dataDir });
    const crashed = lockOf(dataDir);
    await first.kill9();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);

    first = await startChildServer({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' });
    expect(lockOf(dataDir).pid).toBe(first.process.pid);
    const warned = first
      .output()
      .split('\n')
      .filter((l) => l.includes('took over the lock'))
      .map(parsed);
    expect(warned).toEqual([
      expect.objectContaining({ previous: { pid: crashed.pid, host: crashed.host, started_at: crashed.started_at } }),
    ]);
  });

  it("takes over a lock file whose pid is dead on this host (a crash's leftover)", async () => {
    const pid = deadPid();
    writeFileSync(
      join(dataDir, LOCK_FILE),
      JSON.stringify({ pid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z', proc_start: null }),
    );
    first = await startChildServer({ DATA_DIR: dataDir });
    expect(lockOf(dataDir)).toMatchObject({ pid: first.process.pid, host: hostname() });
  });

  it('refuses a lock held on another host, saying how to free it when that process is gone', async () => {
    const other = { pid: 4242, host: `not-${hostname()}`, started_at: '2026-01-01T00:00:00.000Z', proc_start: null };
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify(other));
    const run = await runToExit({ DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(parsed(run.lines[0]).msg).toContain(`in use by process 4242 on ${other.host}`);
    expect(parsed(run.lines[0]).msg).toContain(`if that process is gone, delete ${join(dataDir, LOCK_FILE)}`);
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toEqual(other);
  });

  it('refuses a second service in the same process on the same data directory, and takes it once the first has closed', async () => {
    const server = await startTestServer({ dataDir });
    try {
      await expect(startTestServer({ dataDir })).rejects.toThrow(`is in use by process ${process.pid}`);
    } finally {
      await server.close();
    }
    const again = await startTestServer({ dataDir });
    await again.close();
  });
});

describe('start-up errors: one line, exit 1, nothing written', () => {
  let parent: string;
  let taken: Server | null = null;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'rebac-startup-'));
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => (taken ? taken.close(() => resolve()) : resolve()));
    taken = null;
    rmSync(parent, { recursive: true, force: true });
  });

  it('a port in use: names it, and creates no data directory', async () => {
    taken = createServer();
    const port = await new Promise<number>((resolve) =>
      taken!.listen(0, '127.0.0.1', () => resolve((taken!.address() as { port: number }).port)),
    );
    const dataDir = join(parent, 'data');
    const run = await runToExit({ DATA_DIR: dataDir, PORT: String(port) });
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(parsed(run.lines[0])).toMatchObject({
      level: 60,
      msg: `could not start: port 127.0.0.1:${port} is in use by another process: stop it, or set PORT (0: any free port)`,
      code: 'EADDRINUSE',
    });
    expect(existsSync(dataDir)).toBe(false);
  });

  it('an invalid configuration: names the variable, and creates no data directory', async () => {
    const dataDir = join(parent, 'data');
    const run = await runToExit({ DATA_DIR: dataDir, READ_CACHE_ENTRIES: 'many' });
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(parsed(run.lines[0]).msg).toMatch(/^could not start: invalid configuration: READ_CACHE_ENTRIES: /);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('HTTP_WORKERS with engines check workers cannot read: refused before anything is written', async () => {
    const dataDir = join(parent, 'data');
    const run = await runToExit({
      DATA_DIR: dataDir,
      HTTP_WORKERS: '2',
      TASK_QUEUE: 'memory',
      READ_MODEL_STORE: 'mongodb',
      MONGODB_URL: 'mongodb://127.0.0.1:1',
    });
    expect(run.code).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(parsed(run.lines[0]).msg).toMatch(/^could not start: HTTP_WORKERS=2 needs the SQLite event log and read models/);
    expect(existsSync(dataDir)).toBe(false);
  });
});
