import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { streams } from '../../shared/events';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import { parseCausation } from '../../task-service/copy/remap';
import { ApiClient } from '../support/embedded-server';
import { syntheticEnvironment } from './support/synthetic-environment';

jest.setTimeout(120_000);

const ROOT = resolve(__dirname, '../..');
const ADMIN_KEY = 'crash-test-admin-key-0123456789';
const EVENTS = 30_000;

interface Child {
  process: ChildProcess;
  api: ApiClient;
}

/** Starts the service in a child process on `dataDir` and waits until it listens. */
function startChild(dataDir: string, env: Record<string, string> = {}): Promise<Child> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'test/copy/support/serve-copy.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolvePromise({ process: child, api: new ApiClient((JSON.parse(line) as { url: string }).url, ADMIN_KEY) });
    });
    child.on('exit', (code) => reject(new Error(`child exited with ${code}: ${err}`)));
  });
}

const running = (child: Child) => child.process.exitCode === null && child.process.signalCode === null;

function kill(child: Child): Promise<void> {
  if (!running(child)) return Promise.resolve();
  return new Promise((r) => {
    child.process.once('exit', () => r());
    child.process.kill('SIGKILL');
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe('killing the service in the middle of a copy', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-copy-crash-'));
  const children: Child[] = [];
  afterAll(async () => {
    for (const child of children) await kill(child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes the copy after a restart and ends it with a complete copy, never a partial success', async () => {
    // The first process copies slowly, so the kill lands mid-copy.
    const first = await startChild(dataDir, { SLOW_COPY_APPEND_MS: '80' });
    children.push(first);
    const source = (await first.api.get('/v2/projects/default/envs/production')).body as { id: string };

    // A source of EVENTS events, appended straight into its stream (another process sharing the SQLite file).
    const store = new SqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    let version = await store.streamVersion(streams.environment(source.id));
    let head = 0;
    for (const batch of syntheticEnvironment(EVENTS)) {
      const result = await store.append(streams.environment(source.id), batch, version === -1 ? 'no_stream' : version);
      version = result.streamVersion;
      head = result.position;
    }
    await until('the read models to catch up', async () => ((await first.api.get('/readyz')).body.position >= head ? true : undefined));

    const started = await first.api.post('/v2/projects/default/envs/production/copy/async', {
      target_env: { new: { key: 'copy', name: 'Copy' } },
      scope: { facts: true },
    });
    expect(started.status).toBe(202);
    const resultPath = `/v2/projects/default/envs/production/copy/async/${started.body.task_id}/result`;
    const midway = await until('the copy to be under way', async () => {
      const r = await first.api.get(resultPath);
      return r.body.progress.events_copied >= 5_000 ? r.body : undefined;
    });
    await kill(first);
    expect(midway.status).toBe('processing');

    const targetStream = streams.environment(midway.result?.id ?? (await targetIdOf(store, started.body.task_id)));
    const copiedBeforeCrash = (await store.streamVersion(targetStream)) + 1;
    expect(copiedBeforeCrash).toBeGreaterThan(0);
    expect(copiedBeforeCrash).toBeLessThan(EVENTS);

    const second = await startChild(dataDir);
    children.push(second);
    const done = (await until('the task to finish', async () => {
      const r = await second.api.get(`${resultPath}?wait=5`);
      return r.body.status === 'processing' ? undefined : r.body;
    })) as { status: string; result: { id: string; key: string } };
    expect(done.status).toBe('success');
    expect(done.result.key).toBe('copy');

    // Every source event once, in order, under its own causation.
    const copied = await readAll(store, targetStream);
    // (and the source's first: the `default` tenant it was created with)
    expect(copied).toHaveLength(EVENTS + 1);
    expect(copied.every((e, i) => parseCausation(e.metadata.causationId)?.version === i)).toBe(true);
    const taskEvents = (await store.readStream(streams.task(started.body.task_id))).map((e) => e.type);
    expect(taskEvents.filter((t) => t === 'TaskStarted')).toHaveLength(2);
    expect(taskEvents.at(-1)).toBe('TaskSucceeded');

    // And the read models of the copy hold what the source's hold.
    const count = async (env: string, path: string) =>
      (await second.api.get(`/v2/facts/default/${env}/${path}?include_total_count=true&per_page=1`)).body.total_count as number;
    for (const path of ['resource_instances', 'relationship_tuples', 'role_assignments']) {
      expect({ path, count: await count('copy', path) }).toEqual({ path, count: await count('production', path) });
    }
    await store.close();
  });
});

async function targetIdOf(store: SqliteEventStore, taskId: string): Promise<string> {
  const [requested] = await store.readStream(streams.task(taskId), 0, 1);
  return (requested!.data as { target: { environmentId: string } }).target.environmentId;
}

async function readAll(store: SqliteEventStore, stream: string) {
  const out = [];
  for (let from = 0; ;) {
    const batch = await store.readStream(stream, from, 10_000);
    out.push(...batch);
    if (batch.length < 10_000) return out;
    from = batch.at(-1)!.streamVersion + 1;
  }
}
