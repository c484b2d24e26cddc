import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CURRENT_SCHEMA_VERSION, streams } from '../../shared/events';
import { SECRETS_KEY_FILE } from '../../shared/secrets/secrets-key';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * No secret enters the log (docs/permit-compat.md, "Proxy configs"): a proxy config's secret is
 * sealed with the deployment's key before it is appended, stays sealed in the read model, and is
 * opened only where the API answers it.
 */
describe('proxy config secrets', () => {
  const facts = '/v2/facts/default/production';
  const bearer = 'bearer-secret-7f3a9c';
  const basic = 'basic-user-4d2e:basic-password-8b1f';
  const header = 'header-secret-value-5e6d';
  const secrets = [bearer, 'basic-user-4d2e', 'basic-password-8b1f', header];
  let server: TestServer;
  let dataDir: string;

  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  /** Every event of the log, as the event store port gives them, in one JSON text. */
  const rawLog = async (s: TestServer) => JSON.stringify(await s.service.eventStore.readAll(0, 100_000));
  const expectNoSecretIn = (text: string) => {
    for (const secret of secrets) expect(text).not.toContain(secret);
  };

  beforeAll(async () => {
    server = await startTestServer();
    dataDir = server.dataDir;
    await ok(server.api.post(`${facts}/proxy_configs`, { key: 'bearer', name: 'Bearer', secret: bearer }));
    await ok(server.api.post(`${facts}/proxy_configs`, { key: 'basic', name: 'Basic', secret: 'first:pw', auth_mechanism: 'Basic' }));
    await ok(server.api.patch(`${facts}/proxy_configs/basic`, { secret: basic }));
    await ok(
      server.api.post(`${facts}/proxy_configs`, {
        key: 'headers',
        name: 'Headers',
        secret: { 'X-Api-Key': header },
        auth_mechanism: 'Headers',
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every secret out of the event log: what is appended is an envelope sealed with the key', async () => {
    const log = await rawLog(server);
    expectNoSecretIn(log);
    const events = (await server.service.eventStore.readAll(0, 100_000)).filter((e) => e.type.startsWith('ProxyConfig'));
    expect(events.map((e) => e.type)).toEqual(['ProxyConfigCreated', 'ProxyConfigCreated', 'ProxyConfigUpdated', 'ProxyConfigCreated']);
    for (const event of events)
      expect((event.data as { secret: unknown }).secret).toEqual({
        v: 1,
        kid: server.service.services.secrets.kid,
        iv: expect.any(String),
        tag: expect.any(String),
        data: expect.any(String),
        form: expect.any(String),
        mac: expect.any(String),
      });
    // The read model keeps it sealed too, and so do the command-state snapshots.
    expectNoSecretIn(JSON.stringify(await server.service.services.readModels.proxyConfigs.find({})));
  });

  it('answers the secrets opened: get, list, as_of, and the write that set them', async () => {
    const { body: created, headers } = await server.api.post(`${facts}/proxy_configs`, {
      key: 'later',
      name: 'Later',
      secret: 'later-tok',
    });
    expect(created.secret).toBe('later-tok');
    expect((await ok(server.api.get(`${facts}/proxy_configs/bearer`))).secret).toBe(bearer);
    expect((await ok(server.api.get(`${facts}/proxy_configs/basic`))).secret).toBe(basic);
    expect((await ok(server.api.get(`${facts}/proxy_configs/headers`))).secret).toEqual({ 'X-Api-Key': header });
    const list = await ok(server.api.get(`${facts}/proxy_configs`));
    expect(Object.fromEntries(list.map((c: any) => [c.key, c.secret]))).toEqual({
      bearer,
      basic,
      headers: { 'X-Api-Key': header },
      later: 'later-tok',
    });
    // As of before `later` was created, and before the Basic secret changed.
    const position = Number(headers.get('x-event-position'));
    const before = await ok(server.api.get(`${facts}/proxy_configs?as_of=${position - 1}`));
    expect(before.map((c: any) => c.key).sort()).toEqual(['basic', 'bearer', 'headers']);
    const events = (await server.service.eventStore.readAll(0, 100_000)).filter((e) => e.type === 'ProxyConfigUpdated');
    const beforeUpdate = await ok(server.api.get(`${facts}/proxy_configs/basic?as_of=${events[0]!.position - 1}`));
    expect(beforeUpdate.secret).toBe('first:pw');
  });

  it('copies them sealed as they are: the copy reads them, and an equal secret is no conflict', async () => {
    const copy = (body: Record<string, unknown>) => server.api.post('/v2/projects/default/envs/production/copy', body);
    expect((await copy({ target_env: { new: { key: 'copied', name: 'Copied' } } })).status).toBe(200);
    expect((await ok(server.api.get('/v2/facts/default/copied/proxy_configs/basic'))).secret).toBe(basic);
    expect((await ok(server.api.get('/v2/facts/default/copied/proxy_configs/headers'))).secret).toEqual({ 'X-Api-Key': header });

    // Into an existing environment: the same secret sealed again (another nonce) is the same; another is a conflict.
    await ok(server.api.post('/v2/projects/default/envs', { key: 'target', name: 'Target' }));
    await ok(server.api.post('/v2/facts/default/target/proxy_configs', { key: 'bearer', name: 'Bearer', secret: bearer }));
    await ok(server.api.post('/v2/facts/default/target/proxy_configs', { key: 'later', name: 'Later', secret: 'another-tok' }));
    const refused = await copy({ target_env: { existing: 'target' } });
    expect(refused.status).toBe(409);
    expect(refused.body.additional_info.conflicts).toEqual([{ kind: 'proxy_config', key: 'later' }]);
    expect((await copy({ target_env: { existing: 'target' }, conflict_strategy: 'overwrite' })).status).toBe(200);
    expect((await ok(server.api.get('/v2/facts/default/target/proxy_configs/later'))).secret).toBe('later-tok');
    expectNoSecretIn(await rawLog(server));
  });

  it('reads them after a restart with the key the first start generated into DATA_DIR', async () => {
    const keyFile = join(dataDir, SECRETS_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8');
    await server.close({ keepData: true });
    server = await startTestServer({ dataDir });
    expect(readFileSync(keyFile, 'utf8')).toBe(key);
    expect((await ok(server.api.get(`${facts}/proxy_configs/basic`))).secret).toBe(basic);
    expect((await ok(server.api.get('/v2/facts/default/copied/proxy_configs/bearer'))).secret).toBe(bearer);
    // Nor did the command-state snapshots written on the way down keep a secret.
    const snapshots = join(dataDir, 'snapshots');
    for (const file of readdirSync(snapshots, { recursive: true, withFileTypes: true }).filter((f) => f.isFile()))
      expectNoSecretIn(readFileSync(join(file.parentPath, file.name)).toString('latin1'));
  });

  it('with another SECRETS_KEY, answers a clear error naming the key, and serves everything else', async () => {
    const kid = server.service.services.secrets.kid;
    await server.close({ keepData: true });
    server = await startTestServer({ dataDir, env: { SECRETS_KEY: randomBytes(32).toString('base64') } });
    expect(server.service.services.secrets.kid).not.toBe(kid);
    for (const path of [`${facts}/proxy_configs/bearer`, `${facts}/proxy_configs`]) {
      const answer = await server.api.get(path);
      expect(answer.status).toBe(500);
      expect(answer.body).toMatchObject({
        error_code: 'UNEXPECTED_ERROR',
        reason: 'SECRET_UNREADABLE',
        message: expect.stringContaining(`the secret was encrypted with key ${kid}, which this service does not have (SECRETS_KEY`),
      });
    }
    expect((await server.api.get('/v2/api-key/scope')).status).toBe(200);
    // A new secret is sealed with the new key, and read back.
    expect((await ok(server.api.patch(`${facts}/proxy_configs/bearer`, { secret: 'renewed' }))).secret).toBe('renewed');
  });

  it('refuses a secret that was never sealed, by name', async () => {
    const env = await ok(server.api.get('/v2/projects/default/envs/production'));
    const stream = streams.environment(env.id);
    const plain = 'plain-never-sealed-secret';
    await server.service.eventStore.append(
      stream,
      [
        {
          type: 'ProxyConfigCreated',
          data: {
            id: randomBytes(8).toString('hex'),
            key: 'plain',
            name: 'Plain',
            authMechanism: 'Bearer',
            secret: plain,
            mappingRules: [],
          },
          metadata: { actor: null, timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION },
        },
      ],
      await server.service.eventStore.streamVersion(stream),
    );
    const head = await server.service.eventStore.headPosition();
    const answer = await server.api.get(`${facts}/proxy_configs/plain`, { 'x-min-event-position': String(head) });
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ reason: 'SECRET_UNREADABLE', message: expect.stringContaining('not encrypted') });
    expect(JSON.stringify(answer.body)).not.toContain(plain);
  });
});
