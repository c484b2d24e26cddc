import { createHash } from 'node:crypto';
import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * The audit log over HTTP (docs/audit.md): entries, every filter against the
 * same filter applied to the whole log, paging to the head both ways, scoping
 * by key, the organisation's log, audit metadata, and no secret anywhere.
 */

interface Entry {
  position: number;
  stream_version: number;
  type: string;
  timestamp: string;
  actor: { type: string; id: string | null; name: string | null };
  request_id: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  audit_metadata: Record<string, unknown> | null;
  data: Record<string, any>;
}
interface Page {
  data: Entry[];
  next_after: number | null;
  head_position: number;
}

const LOG = '/v2/events/default/production';

let server: TestServer;
let env: ApiClient;
let secrets: string[];

async function ok<T = any>(response: Promise<{ status: number; body: T }>): Promise<T> {
  const r = await response;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Every page of a listing, following `next_after` until it is null. */
async function allPages(client: ApiClient, path: string, query: string, order: 'asc' | 'desc' = 'asc', limit = 1000): Promise<Entry[]> {
  const out: Entry[] = [];
  let after: number | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const page: Page = await ok(
      client.get(`${path}${sep}order=${order}&limit=${limit}${query ? `&${query}` : ''}${after === null ? '' : `&after=${after}`}`),
    );
    expect(page.data.length).toBeLessThanOrEqual(limit);
    out.push(...page.data);
    if (page.next_after === null) return out;
    after = page.next_after;
  }
  throw new Error('paging did not end');
}

const positions = (entries: Entry[]) => entries.map((e) => e.position);

beforeAll(async () => {
  server = await startTestServer();
  env = await server.api.environmentClient();
  await loadFolderFileExample(env);
  // More of everything: a second tenant, a user of its own, a top-level role, removals and their cascades.
  await ok(env.post(`${FACTS}/tenants`, { key: 'globex', name: 'Globex' }));
  await ok(env.post(`${FACTS}/users`, { key: 'bob', email: 'bob@example.com' }));
  await ok(env.post(`${SCHEMA}/roles`, { key: 'auditor', name: 'Auditor', permissions: ['file:read'] }));
  await ok(env.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'auditor', tenant: 'globex' }));
  await ok(env.post(`${FACTS}/resource_instances`, { key: 'specs', resource: 'folder', tenant: 'acme' }));
  await ok(env.post(`${FACTS}/resource_instances`, { key: 'plan', resource: 'file', tenant: 'acme' }));
  await ok(env.post(`${FACTS}/relationship_tuples`, { subject: 'folder:specs', relation: 'parent', object: 'file:plan' }));
  await ok(env.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'viewer', resource_instance: 'file:plan' }));
  const unassigned = await env.delete(`${FACTS}/role_assignments`, { user: 'bob', role: 'viewer', resource_instance: 'file:plan' });
  expect(unassigned.status).toBe(204);
  expect((await env.delete(`${FACTS}/resource_instances/folder:specs`)).status).toBe(204);
  // Keys of each width, whose secrets must appear nowhere.
  const project = await ok(server.api.post('/v2/api-key', { project_id: 'default', object_type: 'project', name: 'project key' }));
  const unnamed = await ok(server.api.post('/v2/api-key', { project_id: 'default', environment_id: 'production', object_type: 'env' }));
  secrets = [server.adminKey, project.secret as string, unnamed.secret as string];
  await ok(server.api.post('/v2/projects', { key: 'other', name: 'Other' }));
  await ok(server.api.post('/v2/projects/other/envs', { key: 'staging', name: 'Staging' }));
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('the audit log of an environment', () => {
  it('lists every change in log order: position, version, type, time, actor, request, metadata and data by key', async () => {
    const response = await env.request(
      'POST',
      `${FACTS}/users`,
      { key: 'carol' },
      { 'x-correlation-id': 'change-42', 'x-request-id': 'req-carol' },
    );
    expect(response.status).toBe(200);
    const written = Number(response.headers.get('x-event-position'));
    const page: Page = await ok(env.get(LOG));
    expect(page.head_position).toBeGreaterThanOrEqual(written);
    const entries = page.data;
    expect(positions(entries)).toEqual([...positions(entries)].sort((a, b) => a - b));
    expect(entries.map((e) => e.stream_version)).toEqual(entries.map((_, i) => i));
    const carol = entries.find((e) => e.position === written)!;
    expect(carol).toEqual({
      position: written,
      stream_version: expect.any(Number),
      type: 'UserCreated',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      actor: { type: 'api_key', id: expect.any(String), name: 'test' },
      request_id: 'req-carol',
      correlation_id: 'change-42',
      causation_id: null,
      audit_metadata: null,
      data: { id: expect.any(String), key: 'carol', email: null, first_name: null, last_name: null, attributes: {} },
    });
    const scope = await ok(env.get('/v2/api-key/scope'));
    expect(carol.actor.id).not.toBe(scope.organization_id);
    // References by key, as the API names them.
    expect(entries.find((e) => e.type === 'RelationshipTupleCreated')!.data).toEqual({
      id: expect.any(String),
      subject: 'folder:docs',
      relation: 'parent',
      object: 'file:readme',
      tenant: 'acme',
      // No end (docs/expiring-access.md).
      expires_at: null,
    });
    expect(entries.find((e) => e.type === 'RoleAssigned')!.data).toMatchObject({
      user: 'alice',
      role: 'editor',
      tenant: 'acme',
      resource_instance: 'folder:docs',
    });
    expect(entries.find((e) => e.type === 'RoleDerivationsReplaced')!.data).toMatchObject({
      key: 'editor',
      resource: 'file',
      granted_to: { users_with_role: [{ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }] },
    });
    // A delete shows its cascade, dependants first.
    const deleted = entries.filter((e) => e.type.endsWith('Deleted') || e.type === 'RoleUnassigned').map((e) => e.type);
    expect(deleted).toEqual(['RoleUnassigned', 'RelationshipTupleDeleted', 'ResourceInstanceDeleted']);
  });

  it('finds by each filter what the same filter over the whole log finds; a repeated filter is OR, filters AND', async () => {
    const all = await allPages(env, LOG, '');
    const typeOf = (ref: string | null | undefined) => (ref ? ref.split(':')[0] : undefined);
    const rules = (e: Entry): Array<Record<string, string>> => [
      ...((e.data.granted_to?.users_with_role as Array<Record<string, string>> | undefined) ?? []),
      ...(e.data.implicit_grant ? [e.data.implicit_grant as Record<string, string>] : []),
    ];
    const isRole = (e: Entry) => /^(Role(Created|Updated|Deleted|DerivationsReplaced)|ImplicitGrant)/.test(e.type);
    const isRelation = (e: Entry) => e.type.startsWith('Relation') && !e.type.startsWith('RelationshipTuple');
    const isInstance = (e: Entry) => e.type.startsWith('ResourceInstance');
    const predicates: Record<string, (e: Entry, v: string) => boolean> = {
      type: (e, v) => e.type === v,
      user: (e, v) => (e.type === 'UserCreated' && e.data.key === v) || e.data.user === v,
      resource_instance: (e, v) =>
        (isInstance(e) && `${e.data.resource}:${e.data.key}` === v) ||
        [e.data.resource_instance, e.data.subject, e.data.object].includes(v),
      resource: (e, v) =>
        (e.type.startsWith('Resource') && !isInstance(e) && e.data.key === v) ||
        (isRole(e) && (e.data.resource === v || rules(e).some((r) => r.on_resource === v))) ||
        (isRelation(e) && (e.data.object_resource === v || e.data.subject_resource === v)) ||
        (isInstance(e) && e.data.resource === v) ||
        (e.type.startsWith('Role') && !isRole(e) && typeOf(e.data.resource_instance) === v) ||
        (e.type.startsWith('RelationshipTuple') && (typeOf(e.data.subject) === v || typeOf(e.data.object) === v)),
      role: (e, v) =>
        (isRole(e) && (e.data.key === v || rules(e).some((r) => r.role === v))) ||
        (/^Role(Un)?[aA]ssigned/.test(e.type) && e.data.role === v),
      relation: (e, v) =>
        (isRelation(e) && e.data.key === v) || e.data.relation === v || (isRole(e) && rules(e).some((r) => r.linked_by_relation === v)),
      tenant: (e, v) => (e.type.startsWith('Tenant') && e.data.key === v) || e.data.tenant === v,
      actor_id: (e, v) => e.actor.id === v,
      actor_type: (e, v) => e.actor.type === v,
      request_id: (e, v) => e.request_id === v,
      correlation_id: (e, v) => e.correlation_id === v,
    };
    const cases: Array<[string, string[]]> = [
      ['type', ['RoleAssigned']],
      ['type', ['RoleAssigned', 'RoleUnassigned']],
      ['user', ['alice']],
      ['user', ['bob']],
      ['resource_instance', ['folder:docs']],
      ['resource_instance', ['file:plan']],
      ['resource_instance', ['folder:specs', 'file:readme']],
      ['resource', ['folder']],
      ['resource', ['file']],
      ['role', ['editor']],
      ['role', ['viewer']],
      ['role', ['auditor']],
      ['relation', ['parent']],
      ['tenant', ['acme']],
      ['tenant', ['globex']],
      // The first event written with a key (the environment's `default` tenant was written by the system, actor null).
      ['actor_id', [all.find((e) => e.actor.id !== null)!.actor.id!]],
      ['actor_type', ['api_key']],
      ['request_id', [all.filter((e) => e.request_id !== null)[3]!.request_id!]],
      ['correlation_id', ['change-42']],
    ];
    for (const [filter, values] of cases) {
      const expected = positions(all.filter((e) => values.some((v) => predicates[filter]!(e, v))));
      expect(expected.length).toBeGreaterThan(0);
      const query = values.map((v) => `${filter}=${encodeURIComponent(v)}`).join('&');
      expect({ filter, values, got: positions(await allPages(env, LOG, query)) }).toEqual({ filter, values, got: expected });
    }
    // AND across filters.
    const both = positions(all.filter((e) => predicates.user!(e, 'bob') && predicates.resource_instance!(e, 'file:plan')));
    expect(both.length).toBe(2);
    expect(positions(await allPages(env, LOG, 'user=bob&resource_instance=file:plan'))).toEqual(both);
    expect(positions(await allPages(env, LOG, 'user=bob&resource_instance=file:plan&type=RoleUnassigned'))).toEqual([both[1]]);
    expect(await allPages(env, LOG, 'user=nobody')).toEqual([]);
  });

  it('pages to the head in both orders, at any page size, and takes ranges of positions and times', async () => {
    const all = await allPages(env, LOG, '');
    const head = (await ok<Page>(env.get(LOG))).head_position;
    expect(all.at(-1)!.position).toBeLessThanOrEqual(head);
    for (const limit of [1, 3, 7]) {
      expect(positions(await allPages(env, LOG, '', 'asc', limit))).toEqual(positions(all));
      expect(positions(await allPages(env, LOG, '', 'desc', limit))).toEqual(positions(all).reverse());
      expect(positions(await allPages(env, LOG, 'resource=file', 'desc', limit))).toEqual(
        positions(await allPages(env, LOG, 'resource=file', 'asc')).reverse(),
      );
    }
    const first: Page = await ok(env.get(`${LOG}?limit=2`));
    expect(first.data).toHaveLength(2);
    expect(first.next_after).toBe(first.data[1]!.position);
    // `after` and `until` read in the direction of the listing: asc (after, until], desc [until, after).
    const [a, b] = [all[3]!.position, all[9]!.position];
    const between = positions(all.filter((e) => e.position > a && e.position <= b));
    expect(positions(await allPages(env, LOG, `until=${b}&after=${a}`))).toEqual(between);
    const betweenDesc = positions(all.filter((e) => e.position >= a && e.position < b)).reverse();
    expect(positions((await ok<Page>(env.get(`${LOG}?order=desc&after=${b}&until=${a}`))).data)).toEqual(betweenDesc);
    // Times: ISO 8601 or epoch seconds, inclusive.
    const from = all[5]!.timestamp;
    const until = all[12]!.timestamp;
    const inTime = positions(all.filter((e) => e.timestamp >= from && e.timestamp <= until));
    expect(inTime.length).toBeGreaterThanOrEqual(8);
    expect(positions(await allPages(env, LOG, `timestamp_from=${from}&timestamp_until=${until}`))).toEqual(inTime);
    const seconds = (iso: string) => Date.parse(iso) / 1000;
    expect(positions(await allPages(env, LOG, `timestamp_from=${seconds(from)}&timestamp_until=${seconds(until)}`))).toEqual(inTime);
    expect(positions(await allPages(env, LOG, `timestamp_from=${seconds(from)}`, 'desc', 2))).toEqual(
      positions(all.filter((e) => e.timestamp >= from)).reverse(),
    );
    expect((await ok<Page>(env.get(`${LOG}?after=${head}`))).data).toEqual([]);
  });

  it('refuses unknown and malformed filters with 422 naming them', async () => {
    const refused = async (query: string, loc: string) => {
      const r = await env.get(`${LOG}?${query}`);
      expect({ query, status: r.status }).toEqual({ query, status: 422 });
      expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(loc);
    };
    await refused('usr=alice', 'query.usr');
    await refused('type=NoSuchEvent', 'query.type');
    await refused('resource_instance=docs', 'query.resource_instance');
    await refused('limit=0', 'query.limit');
    await refused('limit=1001', 'query.limit');
    await refused('limit=5&limit=6', 'query.limit');
    await refused('order=sideways', 'query.order');
    await refused('after=-1', 'query.after');
    await refused('until=1.5', 'query.until');
    await refused('timestamp_from=yesterday', 'query.timestamp_from');
    await refused('audit_metadata.=x', 'query.audit_metadata.');
    await refused('user=', 'query.user');
    await refused(Array.from({ length: 101 }, (_, i) => `user=u${i}`).join('&'), 'query');
    expect((await env.get(`${LOG}?limit=1000&order=desc`)).status).toBe(200);
  });

  it('is readable by keys that cover the environment only', async () => {
    expect((await env.get('/v2/events/other/staging')).status).toBe(403);
    expect((await env.get('/v2/events/default/nowhere')).status).toBe(403);
    expect((await server.api.get('/v2/events/default/nowhere')).status).toBe(404);
    expect((await server.api.get('/v2/events/other/staging')).status).toBe(200);
    const project = await ok(server.api.post('/v2/api-key', { project_id: 'other', object_type: 'project', name: 'other' }));
    const otherProject = server.api.withKey(project.secret as string);
    secrets.push(project.secret as string);
    expect((await otherProject.get(LOG)).status).toBe(403);
    expect((await otherProject.get('/v2/events/other/staging')).status).toBe(200);
    // Environment ids work as keys do.
    const scope = await ok(env.get('/v2/api-key/scope'));
    const byIds: Page = await ok(env.get(`/v2/events/${scope.project_id}/${scope.environment_id}?limit=1`));
    expect(byIds.data).toHaveLength(1);
    expect((await server.api.withKey('nope-nope-nope').get(LOG)).status).toBe(401);
  });
});

describe("the organisation's audit log", () => {
  it('lists projects, environments and keys to organisation keys only', async () => {
    const org = await allPages(server.api, '/v2/events?stream=org', '');
    expect(org.map((e) => e.type).slice(0, 4)).toEqual(['OrganizationCreated', 'ProjectCreated', 'EnvironmentCreated', 'ApiKeyCreated']);
    expect(org[0]!.actor).toEqual({ type: 'system', id: null, name: null });
    const keys = org.filter((e) => e.type === 'ApiKeyCreated');
    expect(keys.map((e) => e.data.name)).toEqual(['admin', 'test', 'project key', '', 'other']);
    expect(keys[1]!.data).toEqual({
      id: expect.any(String),
      access_level: 'admin',
      name: 'test',
      object_type: 'env',
      project_id: expect.any(String),
      environment_id: expect.any(String),
    });
    expect(keys[1]!.actor).toEqual({ type: 'api_key', id: keys[0]!.data.id, name: 'admin' });
    expect(org.filter((e) => e.type === 'ProjectCreated').map((e) => e.data.key)).toEqual(['default', 'other']);
    expect(positions(await allPages(server.api, '/v2/events?stream=org', 'type=ApiKeyCreated', 'desc', 2))).toEqual(
      positions(keys).reverse(),
    );
    expect((await env.get('/v2/events?stream=org')).status).toBe(403);
    expect((await server.api.get('/v2/events')).status).toBe(422);
    expect((await server.api.get('/v2/events?stream=org&user=alice')).status).toBe(422);
  });

  it('holds no API key secret, nor its hash, anywhere', async () => {
    const everything = JSON.stringify([
      await allPages(server.api, '/v2/events?stream=org', ''),
      await allPages(server.api, LOG, ''),
      await allPages(server.api, '/v2/events/other/staging', ''),
    ]);
    expect(everything).toContain('ApiKeyCreated');
    for (const secret of secrets) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(createHash('sha256').update(secret).digest('hex'));
    }
    expect(everything.toLowerCase()).not.toMatch(/secret|hash/);
  });
});

describe('audit metadata (X-Audit-Metadata)', () => {
  it('is stored with every event of the write, returned, and filterable by its fields', async () => {
    const metadata = { ticket: 'ABC-1', reason: 'quarterly review', reviewer: { team: 'sec' }, tags: ['sox', 'q3'], urgent: true };
    const r = await env.request('POST', `${FACTS}/users`, { key: 'dave' }, { 'x-audit-metadata': JSON.stringify(metadata) });
    expect(r.status).toBe(200);
    const bulk = await env.request(
      'POST',
      `${FACTS}/relationship_tuples/bulk`,
      { operations: [{ subject: 'folder:docs', relation: 'parent', object: 'file:plan' }] },
      { 'x-audit-metadata': JSON.stringify({ ticket: 'ABC-2' }) },
    );
    expect(bulk.status).toBe(200);
    const tagged = await allPages(env, LOG, 'audit_metadata.ticket=ABC-1');
    expect(tagged.map((e) => [e.type, e.data.key])).toEqual([['UserCreated', 'dave']]);
    expect(tagged[0]!.audit_metadata).toEqual(metadata);
    expect(
      positions(await allPages(env, LOG, 'audit_metadata.reviewer.team=sec&audit_metadata.tags=q3&audit_metadata.urgent=true')),
    ).toEqual(positions(tagged));
    const either = await allPages(env, LOG, 'audit_metadata.ticket=ABC-1&audit_metadata.ticket=ABC-2');
    expect(either.map((e) => e.type)).toEqual(['UserCreated', 'RelationshipTupleCreated']);
    expect(await allPages(env, LOG, 'audit_metadata.ticket=ABC-3')).toEqual([]);
    // Org writes and copy requests carry it too.
    const key = await server.api.request(
      'POST',
      '/v2/api-key',
      { project_id: 'default', object_type: 'project', name: 'ticketed' },
      {
        'x-audit-metadata': '{"ticket":"KEY-9"}',
      },
    );
    expect(key.status).toBe(200);
    secrets.push(key.body.secret as string);
    const org = await allPages(server.api, '/v2/events?stream=org', 'audit_metadata.ticket=KEY-9');
    expect(org.map((e) => e.data.name)).toEqual(['ticketed']);
  });

  it('is refused with 422 naming the header when it is not a small JSON object, and nothing is written', async () => {
    const before = (await ok<Page>(env.get(LOG))).head_position;
    const refusedWith = async (header: string) => {
      const r = await env.request('POST', `${FACTS}/users`, { key: 'eve' }, { 'x-audit-metadata': header });
      expect({ header: header.slice(0, 40), status: r.status }).toEqual({ header: header.slice(0, 40), status: 422 });
      expect(r.body.detail[0].loc.slice(0, 2)).toEqual(['header', 'x-audit-metadata']);
    };
    await refusedWith(JSON.stringify({ note: 'x'.repeat(4096) }));
    await refusedWith('[1, 2]');
    await refusedWith('"a string"');
    await refusedWith('{not json');
    await refusedWith(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`);
    await refusedWith('{"a":"\\u0000"}');
    expect((await ok<Page>(env.get(LOG))).head_position).toBe(before);
    expect((await env.get(`${FACTS}/users/eve`)).status).toBe(404);
    // 4 KiB is allowed.
    const fits = JSON.stringify({ note: 'x'.repeat(4096 - 11) });
    expect(Buffer.byteLength(fits)).toBe(4096);
    expect((await env.request('POST', `${FACTS}/users`, { key: 'eve' }, { 'x-audit-metadata': fits })).status).toBe(200);
  });
});

describe('copies in the audit log', () => {
  it('shows the request in the source environment and the copied events as the task’s in the target', async () => {
    const copy = await server.api.post('/v2/projects/default/envs/production/copy/async?wait=30', {
      target_env: { new: { key: 'copy-of-prod', name: 'Copy' } },
      scope: { facts: true },
    });
    expect(copy.status).toBe(202);
    expect(copy.body.status).toBe('success');
    const source = await allPages(server.api, LOG, 'type=EnvironmentCopyRequested');
    expect(source).toHaveLength(1);
    const taskId = source[0]!.data.task_id as string;
    expect(source[0]!.actor.name).toBe('admin');
    expect(source[0]!.data).toMatchObject({ target_env: { new: { key: 'copy-of-prod' } }, scope: { facts: true } });
    const target = await allPages(server.api, '/v2/events/default/copy-of-prod', '');
    const tasks = target.filter((e) => e.type.startsWith('Task') || e.type === 'EnvironmentCopyRequested');
    expect(tasks.map((e) => e.type)).toEqual(expect.arrayContaining(['EnvironmentCopyRequested', 'TaskStarted', 'TaskSucceeded']));
    const copied = target.filter((e) => !tasks.includes(e));
    expect(copied.length).toBeGreaterThan(10);
    for (const e of copied) expect(e.actor).toEqual({ type: 'task', id: taskId, name: null });
    expect(positions(await allPages(server.api, '/v2/events/default/copy-of-prod', `actor_id=${taskId}&user=alice`))).toEqual(
      positions(copied.filter((e) => e.data.user === 'alice' || (e.type === 'UserCreated' && e.data.key === 'alice'))),
    );
    // The worker's own events are in the source's log too, found by the task's id.
    const worked = await allPages(server.api, LOG, `correlation_id=${taskId}`);
    expect(worked.map((e) => e.type)).toEqual(expect.arrayContaining(['TaskStarted', 'TaskSucceeded']));
    expect(positions(worked)).toEqual(positions((await allPages(server.api, LOG, '')).filter((e) => e.correlation_id === taskId)));
  });
});
