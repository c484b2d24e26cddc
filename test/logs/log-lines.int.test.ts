import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { startEmbedded } from '../../app/embedded';
import { ADMIN_KEY_FILE } from '../../command-service/bootstrap';
import { embeddedFeatures } from '../../app/features';
import { startCommandService } from '../../app/start-command-service';
import { startProjectionService } from '../../app/start-projection-service';
import { startTaskService } from '../../app/start-task-service';
import { loadConfig } from '../../shared/config';
import { createRootLogger } from '../../shared/logger';
import { startChildServer, type ChildServer } from '../support/child-server';
import { duplicateKeys } from '../support/duplicate-keys';
import { ApiClient, FACTS, loadFolderFileExample } from '../support/embedded-server';

/** Every line written to it, as written. */
function capture(): Writable & { lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return Object.assign(stream, { lines });
}

/** A little of everything a service logs: start, writes, checks, refusals, a copy. */
async function drive(api: ApiClient): Promise<void> {
  const envApi = await api.environmentClient();
  await loadFolderFileExample(envApi);
  expect((await envApi.post('/allowed', { user: 'alice', action: 'write', resource: 'file:readme' })).body).toEqual({ allow: true });
  expect((await envApi.get(`${FACTS}/users/nobody`)).status).toBe(404);
  expect((await envApi.post(`${FACTS}/tenants`, { key: 'bad key!' })).status).toBe(422);
  expect((await api.withKey('not-a-key').get('/v2/api-key/scope')).status).toBe(401);
  const copy = await api.post('/v2/projects/default/envs/production/copy/async?wait=10', {
    target_env: { new: { key: 'logged', name: 'Logged' } },
  });
  expect(copy.body.status).toBe('success');
  expect((await fetch(`${api.url}/metrics`)).status).toBe(200);
}

interface Entry {
  service: string;
  component?: string;
  msg: string;
}

function expectWellFormed(lines: string[]): Entry[] {
  const problems = lines.flatMap((line) => {
    const duplicates = duplicateKeys(line);
    return duplicates.length > 0 ? [`${duplicates.join(', ')} twice in ${line}`] : [];
  });
  expect(problems).toEqual([]);
  return lines.map((line) => JSON.parse(line) as Entry);
}

/**
 * The service's JSON log lines never carry a key twice (pino writes a child's
 * bindings after its parent's as they are, so a second `component` would be
 * a second key in the same object, which most log pipelines mangle).
 */
describe('log lines', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rebac-logs-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('of the one-process service: start, requests, a copy, shutdown', async () => {
    const out = capture();
    // The projections on their own thread, whose lines reach this logger through the main thread.
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'debug', PROJECTION_THREAD: 'true' });
    const service = await startEmbedded(
      config,
      createRootLogger('debug', 'rebac', { format: 'json', destination: out }),
      embeddedFeatures(),
    );
    await drive(new ApiClient(service.url, readFileSync(join(config.DATA_DIR, ADMIN_KEY_FILE), 'utf8').trim()));
    await service.close();

    const entries = expectWellFormed(out.lines);
    const messages = entries.map((e) => `${e.component ?? ''}: ${e.msg}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        'projections: projections starting',
        'task-relay: task relay starting',
        'http: request completed',
        'task-service: copy task succeeded',
        ': service listening',
      ]),
    );
    expect(entries.every((e) => e.service === 'rebac')).toBe(true);
    // Every request the API answered names its key (the express routes' lines and the create lane's alike).
    const answered = (entries as Array<Entry & { url?: string; status?: number; key?: { id: string; name: string } }>).filter(
      (e) => e.msg === 'request completed' && e.url?.startsWith('/v2/') && e.status! < 400,
    );
    expect(answered.length).toBeGreaterThan(10);
    expect(answered.filter((e) => typeof e.key?.id !== 'string' || typeof e.key.name !== 'string')).toEqual([]);
  });

  it('of the three services started apart (leases, checkpoint polling)', async () => {
    const out = capture();
    const adminKey = 'log-lines-admin-key-0123456789';
    const secretsKey = Buffer.alloc(32, 'log-lines').toString('base64');
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'debug', ADMIN_API_KEY: adminKey, SECRETS_KEY: secretsKey });
    const logger = (name: string) => createRootLogger('debug', name, { format: 'json', destination: out });
    const projection = await startProjectionService(config, logger('projection-service'), embeddedFeatures());
    const command = await startCommandService(config, logger('command-service'), embeddedFeatures());
    const task = await startTaskService(config, logger('task-service'), embeddedFeatures());
    for (let i = 0; i < 200 && (await fetch(`${command.url}/readyz`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    await drive(new ApiClient(command.url, adminKey));
    await command.close();
    await task.close();
    await projection.close();

    const entries = expectWellFormed(out.lines);
    const messages = entries.map((e) => `${e.service} ${e.component ?? ''}: ${e.msg}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        'projection-service projections: projections starting',
        'command-service : command service ready',
        'task-service : lease acquired; starting the work',
        'task-service task-relay: task relay starting',
        'task-service task-service: copy task succeeded',
        'command-service http: request completed',
      ]),
    );
  });
});

/** One request on a connection of its own (so the front door deals each to the next process in turn). */
function onNewConnection(url: string, path: string, key: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('log lines of the check workers, and the key in the access log', () => {
  let child: ChildServer | null = null;
  const dirs: string[] = [];
  afterAll(async () => {
    await child?.stop();
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  it('name the worker, carry each key once, and name the key of each request by id and name, never its secret', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rebac-logs-'));
    dirs.push(dataDir);
    child = await startChildServer({ DATA_DIR: dataDir, HTTP_WORKERS: '2', LOG_FORMAT: 'json', LOG_LEVEL: 'debug' });
    const admin = new ApiClient(child.url, readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim());
    await loadFolderFileExample(admin);
    const made = await admin.post('/v2/api-key', {
      project_id: 'default',
      environment_id: 'production',
      object_type: 'env',
      name: 'checker',
    });
    const { id, secret } = made.body as { id: string; secret: string };
    const question = { user: 'alice', action: 'write', resource: 'file:readme' };
    // The fast lane's checks and the express route's (explain), over the two processes in turn.
    for (let i = 0; i < 6; i++)
      expect(await onNewConnection(child.url, '/allowed', secret, i % 2 ? { ...question, explain: true } : question)).toBe(200);
    expect(await onNewConnection(child.url, '/allowed', 'not-a-key', question)).toBe(401);
    await child.stop();

    const lines = child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const entries = expectWellFormed(lines) as Array<Entry & { worker?: string; url?: string; status?: number; key?: unknown }>;
    const checks = entries.filter((e) => e.msg === 'request completed' && e.url === '/allowed' && e.status === 200);
    expect(checks).toHaveLength(6);
    expect(checks.every((e) => e.component === 'http' && JSON.stringify(e.key) === JSON.stringify({ id, name: 'checker' }))).toBe(true);
    expect(checks.filter((e) => e.worker === '1').length).toBeGreaterThan(0);
    expect(entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ component: 'check-worker', worker: '1', msg: 'check worker ready' })]),
    );
    // A request without a known key is logged without one.
    const refused = entries.filter((e) => e.url === '/allowed' && e.status === 401);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.key).toBeUndefined();
    expect(child.output()).not.toContain(secret);
  });
});

describe('log format', () => {
  it('is JSON unless stdout is a terminal, and readable lines when pretty', () => {
    const json = capture();
    createRootLogger('info', 'rebac', { destination: json }).child({ component: 'http' }).info({ status: 200 }, 'request completed');
    expect(process.stdout.isTTY).toBeFalsy();
    expect(JSON.parse(json.lines[0]!)).toMatchObject({ service: 'rebac', component: 'http', status: 200, msg: 'request completed' });

    const pretty = capture();
    createRootLogger('info', 'rebac', { format: 'pretty', destination: pretty })
      .child({ component: 'http' })
      .info({ status: 200, secret: 'hush' }, 'request completed');
    expect(pretty.lines).toHaveLength(1);
    expect(pretty.lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: http: request completed \{"status":200,"secret":"\[redacted\]"\}$/);
  });
});
