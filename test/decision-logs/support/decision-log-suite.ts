import { idTimeBound } from '../../../shared/decision-log/port';
import { documentSchema, Scenario } from '../../grants/support/scenario';
import { ApiClient, type TestServer } from '../../support/embedded-server';

/**
 * Decision logs (docs/decision-logs.md): every check the PDP endpoints answer leaves an entry,
 * read at Permit's `GET /v2/pdps/{proj_id}/{env_id}/audit_logs`, in its shape and with its
 * filters; each entry's position with `as_of` re-derives its decision; sampling and retention
 * as configured.
 */

/** An environment with the document schema, a key whose id the test knows, and a few facts. */
export async function environment(server: TestServer, envKey: string) {
  await server.api.post('/v2/projects/default/envs', { key: envKey, name: envKey });
  const key = await server.api.post('/v2/api-key', { project_id: 'default', environment_id: envKey, object_type: 'env', name: 'pdp' });
  expect(key.status).toBe(200);
  const s = Scenario.existing(new ApiClient(server.url, key.body.secret as string), envKey);
  await documentSchema(s);
  await s.instance('document:readme', 'acme');
  await s.instance('document:plan', 'acme');
  await s.assign('alice', 'editor', 'document:readme');
  return { s, keyId: key.body.id as string, secret: key.body.secret as string, logs: `/v2/pdps/default/${envKey}/audit_logs` };
}

export function decisionLogSuite(title: string, start: () => Promise<TestServer>): void {
  describe(title, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await start();
    });
    afterAll(() => server.close());

    it('keeps every check of every PDP endpoint, in Permit’s shape, with the key, the question, the answer and the position', async () => {
      const { s, keyId, secret, logs } = await environment(server, 'dl-shape');
      const single = await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:readme' });
      expect(single.body).toEqual({ allow: true });
      const withContext = await s.api.post('/allowed', {
        user: { key: 'bob', attributes: { level: 3 } },
        action: 'read',
        resource: { type: 'document', key: 'plan', tenant: 'acme' },
        context: { ip: '10.0.0.1' },
      });
      expect(withContext.body).toEqual({ allow: false });
      await s.ok(
        s.api.post('/allowed/bulk', [
          { user: 'alice', action: 'read', resource: 'document:readme' },
          { user: 'bob', action: 'read', resource: 'document:readme' },
        ]),
      );
      await s.ok(s.api.post('/user-permissions', { user: { key: 'alice' }, resource_types: ['document'] }));
      const evaluation = await s.api.post('/access/v1/evaluation', {
        subject: { type: 'user', id: 'alice' },
        action: { name: 'read' },
        resource: { type: 'document', id: 'readme' },
      });
      expect(evaluation.body).toEqual({ decision: true });

      const page = await s.api.get(logs);
      expect(page.status).toBe(200);
      expect(JSON.stringify(page.body)).not.toContain(secret);
      expect(page.body.total_count).toBe(6);
      expect(page.body.page_count).toBe(1);
      expect(page.body.pagination_count).toBe(1);
      // Newest first.
      expect(page.body.data.map((e: any) => e.endpoint)).toEqual([
        '/access/v1/evaluation',
        '/user-permissions',
        '/allowed/bulk',
        '/allowed/bulk',
        '/allowed',
        '/allowed',
      ]);
      const env = await server.api.get('/v2/projects/default/envs/dl-shape');
      const first = page.body.data[5];
      expect(first).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        timestamp: expect.any(String),
        created_at: first.timestamp,
        query: 'permit/root',
        user_key: 'alice',
        user_email: null,
        user_name: null,
        resource_type: 'document',
        resource_key: 'readme',
        tenant: null,
        action: 'write',
        decision: true,
        reason: null,
        org_id: env.body.organization_id,
        project_id: env.body.project_id,
        env_id: env.body.id,
        pdp_config_id: keyId,
        api_key_id: keyId,
        endpoint: '/allowed',
        position: Number(single.headers.get('x-event-position')),
        input: { user: { key: 'alice' }, action: 'write', resource: { type: 'document', key: 'readme' } },
        result: { allow: true },
        context: { user: { id: 'alice', key: 'alice' }, resource: { type: 'document', id: 'readme' }, tenant: null, action: 'write' },
      });
      expect(Date.now() - Date.parse(first.timestamp)).toBeLessThan(60_000);
      // The attributes and context sent are part of the question.
      expect(page.body.data[4]).toMatchObject({
        user_key: 'bob',
        decision: false,
        tenant: 'acme',
        input: {
          user: { key: 'bob', attributes: { level: 3 } },
          action: 'read',
          resource: { type: 'document', key: 'plan', tenant: 'acme' },
          context: { ip: '10.0.0.1' },
        },
        context: { user: { id: 'bob', key: 'bob', attributes: { level: 3 } }, context: { ip: '10.0.0.1' } },
      });
      // A bulk request's checks, the later first.
      expect(page.body.data[3]).toMatchObject({ query: 'permit/bulk', user_key: 'alice', decision: true });
      expect(page.body.data[2]).toMatchObject({ query: 'permit/bulk', user_key: 'bob', decision: false });
      expect(page.body.data[1]).toMatchObject({ query: 'permit/user_permissions', user_key: 'alice', decision: null, action: null });
      expect(page.body.data[1].result.result.permissions).toHaveProperty(['document:readme']);
      expect(page.body.data[0]).toMatchObject({ query: 'permit/root', decision: true, result: { decision: true } });

      // One entry by its id, as Permit's detailed audit log.
      const one = await s.api.get(`${logs}/${first.id}`);
      expect(one.body).toEqual(first);
      expect((await s.api.get(`${logs}/${first.id.replace(/.$/, '0')}0`)).status).toBe(404);
    });

    it('filters as Permit does, and pages', async () => {
      const { s, keyId, logs } = await environment(server, 'dl-filters');
      const before = Math.floor(Date.now() / 1000) - 1;
      for (const [user, action, resource] of [
        ['alice', 'read', 'document:readme'],
        ['alice', 'write', 'document:plan'],
        ['bob', 'read', 'document:readme'],
        ['carol', 'read', 'document'],
      ] as const)
        await s.api.post('/allowed', { user, action, resource });
      await s.api.post('/allowed', { user: 'carol', action: 'read', resource: { type: 'document', tenant: 'acme' } });
      await s.api.post('/user-permissions', { user: 'alice' });

      const ids = async (query: string) => {
        const r = await s.api.get(`${logs}?${query}`);
        expect(r.status).toBe(200);
        return r.body.data.map((e: any) => `${e.user_key} ${e.action} ${e.resource_type}${e.resource_key ? `:${e.resource_key}` : ''}`);
      };
      expect(await ids('decision=true')).toEqual(['alice read document:readme']);
      expect(await ids('decision=false')).toHaveLength(4);
      expect(await ids('users=bob&users=carol')).toEqual(['carol read document', 'carol read document', 'bob read document:readme']);
      expect(await ids('users=alice&query=check')).toEqual(['alice write document:plan', 'alice read document:readme']);
      expect(await ids('query=get_user_permissions')).toEqual(['alice null null']);
      expect(await ids('query=get_authorized_users')).toEqual([]);
      expect(await ids('query=none')).toHaveLength(6);
      expect(await ids('resources=document:readme')).toEqual(['bob read document:readme', 'alice read document:readme']);
      expect(await ids('resources=document&action=write')).toEqual(['alice write document:plan']);
      expect(await ids('tenant=acme')).toEqual(['carol read document']);
      expect(await ids(`pdp_id=${keyId}`)).toHaveLength(6);
      expect(await ids(`pdp_id=${keyId.replaceAll('-', '').toUpperCase()}`)).toHaveLength(6);
      expect(await ids('pdp_id=another-key')).toEqual([]);
      expect(await ids(`timestamp_from=${before}&sort_by=timestamp`)).toHaveLength(6);
      expect(await ids(`timestamp_to=${before}`)).toEqual([]);
      expect(await ids(`timestamp_from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);

      // Pages: newest first, each entry once.
      const pages = [];
      for (let page = 1; page <= 3; page++) {
        const r = await s.api.get(`${logs}?per_page=4&page=${page}`);
        expect(r.body).toMatchObject({ total_count: 6, page_count: 2, pagination_count: 2 });
        pages.push(r.body.data.map((e: any) => e.id));
      }
      expect(pages.map((p) => p.length)).toEqual([4, 2, 0]);
      const all = (await s.api.get(logs)).body.data.map((e: any) => e.id);
      expect([...pages[0]!, ...pages[1]!]).toEqual(all);
      expect(new Set(all).size).toBe(6);
    });

    it('refuses a bad filter with a 422 naming it, and an environment the key cannot see', async () => {
      const { s, logs } = await environment(server, 'dl-refusals');
      for (const [query, loc] of [
        ['decision=maybe', 'decision'],
        ['per_page=101', 'per_page'],
        ['page=0', 'page'],
        ['timestamp_from=yesterday', 'timestamp_from'],
        ['sort_by=user', 'sort_by'],
        ['query=everything', 'query'],
        ['user=alice', 'user'],
        ['users=', 'users'],
      ] as const) {
        const r = await s.api.get(`${logs}?${query}`);
        expect({ query, status: r.status }).toEqual({ query, status: 422 });
        expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(['query', loc]);
      }
      // The environment key of one environment reads no other's log.
      expect((await s.api.get('/v2/pdps/default/production/audit_logs')).status).toBe(403);
      expect((await server.api.get('/v2/pdps/default/no-such-env/audit_logs')).status).toBe(404);
    });

    it('re-derives each entry: its input with as_of its position answers its decision, after the facts changed', async () => {
      const { s, logs } = await environment(server, 'dl-rederive');
      await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:readme' });
      await s.api.post('/allowed/bulk', [
        { user: 'alice', action: 'read', resource: { type: 'document', key: 'readme', tenant: 'acme' } },
        { user: 'alice', action: 'read', resource: 'document:plan' },
      ]);
      // alice's role goes and plan's comes: every current answer flips.
      await s.unassign('alice', 'editor', 'document:readme');
      await s.assign('alice', 'editor', 'document:plan');
      const entries = (await s.api.get(logs)).body.data as any[];
      expect(entries.map((e) => e.decision)).toEqual([false, true, true]);
      for (const entry of entries) {
        const now = await s.api.post('/allowed', entry.input);
        expect(now.body.allow).toBe(!entry.decision);
        const then = await s.api.post('/allowed', { ...entry.input, as_of: entry.position, explain: true });
        expect(then.status).toBe(200);
        expect(then.body.allow).toBe(entry.decision);
        expect(then.headers.get('x-event-position')).toBe(String(entry.position));
      }
      // Checks asked as of the past are logged at that past position.
      const past = entries[0].position;
      await s.api.post('/allowed', { user: 'alice', action: 'read', resource: 'document:plan', as_of: past });
      const [asOfEntry] = (await s.api.get(`${logs}?per_page=1`)).body.data;
      expect(asOfEntry).toMatchObject({ position: past, decision: false });
    });

    it('applies the retention bound: entries older than DECISION_LOG_RETENTION_DAYS are deleted', async () => {
      const { s, logs } = await environment(server, 'dl-retention');
      await s.api.post('/allowed', { user: 'alice', action: 'read', resource: 'document:readme' });
      const [recent] = (await s.api.get(logs)).body.data;
      const store = await server.service.services.decisionLog.opened();
      // An entry of 31 days ago (its id a UUIDv7 of that time, as every entry's is).
      const timestamp = Date.now() - 31 * 86_400_000;
      const old = { ...(await store.get(recent.env_id, recent.id))!, id: `${idTimeBound(timestamp)}-7000-8000-000000000001`, timestamp };
      await store.append([old]);
      expect((await s.api.get(logs)).body.total_count).toBe(2);
      await server.service.services.decisionLog.enforceRetention();
      expect((await s.api.get(logs)).body.data.map((e: any) => e.id)).toEqual([recent.id]);
    });
  });
}
