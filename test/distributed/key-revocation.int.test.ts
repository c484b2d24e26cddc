import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { embeddedFeatures } from '../../app/features';
import { startCommandService, type CommandService } from '../../app/start-command-service';
import { startProjectionService, type ProjectionService } from '../../app/start-projection-service';
import { loadConfig } from '../../shared/config';
import { ApiClient, FACTS } from '../support/embedded-server';

/**
 * Two separate command services (A and B) and a projection service, in this
 * process, over the same SQLite event log and read models: B learns the read
 * models' position by polling the projection checkpoint (once a second when
 * idle), so a key it cached could outlive its deletion through A by up to a
 * poll, unless B checks the key against the store on each request.
 */
describe('a key revoked through one command service is refused by another at once', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-two-commands-'));
  const adminKey = 'two-command-services-admin-key-0123';
  const secretsKey = Buffer.alloc(32, 'revocation').toString('base64');
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_API_KEY: adminKey, SECRETS_KEY: secretsKey });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let projection: ProjectionService;
  let a: CommandService;
  let b: CommandService;
  let adminA: ApiClient;
  let adminB: ApiClient;

  async function ready(url: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${url} never became ready`);
  }

  beforeAll(async () => {
    projection = await startProjectionService(config, logger, embeddedFeatures());
    a = await startCommandService(config, logger, embeddedFeatures());
    b = await startCommandService(config, logger, embeddedFeatures());
    await Promise.all([ready(a.url), ready(b.url)]);
    adminA = new ApiClient(a.url, adminKey);
    adminB = new ApiClient(b.url, adminKey);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await projection?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An environment key made through A, then used twice on B (the second use is served from B's key cache). */
  async function keyCachedOnB(environment = 'production'): Promise<{ id: string; secret: string }> {
    const created = await adminA.post('/v2/api-key', { project_id: 'default', environment_id: environment, object_type: 'env' });
    expect(created.status).toBe(200);
    const onB = adminB.withKey(created.body.secret);
    // B may not have seen the key yet (its position follows a poll): ask for A's position.
    const position = created.headers.get('x-event-position')!;
    const users = `/v2/facts/default/${environment}/users`;
    expect((await onB.get(users, { 'X-Min-Event-Position': position })).status).toBe(200);
    expect((await onB.get(users)).status).toBe(200);
    return { id: created.body.id, secret: created.body.secret };
  }

  it('deletion', async () => {
    const key = await keyCachedOnB();
    expect((await adminA.delete(`/v2/api-key/${key.id}`)).status).toBe(204);
    // No X-Min-Event-Position: B must not need to be told.
    const refused = await adminB.withKey(key.secret).get(`${FACTS}/users`);
    expect(refused.status).toBe(401);
    expect(refused.body.error_code).toBe('UNAUTHORIZED');
  });

  it('rotation', async () => {
    const key = await keyCachedOnB();
    const rotated = await adminA.post(`/v2/api-key/${key.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    expect((await adminB.withKey(key.secret).get(`${FACTS}/users`)).status).toBe(401);
    expect((await adminB.withKey(rotated.body.secret).get(`${FACTS}/users`)).status).toBe(200);
  });

  it('deletion of its environment (the cascade deletes the key)', async () => {
    expect((await adminA.post('/v2/projects/default/envs', { key: 'short-lived', name: 'Short-lived' })).status).toBe(200);
    const key = await keyCachedOnB('short-lived');
    expect((await adminA.delete('/v2/projects/default/envs/short-lived')).status).toBe(204);
    expect((await adminB.withKey(key.secret).get('/v2/api-key/scope')).status).toBe(401);
  });
});
