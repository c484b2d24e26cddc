import { FACTS, loadFolderFileExample, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Saved assertions (docs/assertions.md): CRUD, validation, runs now and as of a past position, the file, CI's failure mode, copies. */
describe('saved assertions', () => {
  let server: TestServer;
  let api: ApiClient;
  const base = `${SCHEMA}/assertions`;
  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const aliceReadsRoadmap = { name: 'alice reads the roadmap', user: 'alice', action: 'read', resource: 'file:roadmap', expected: 'allow' };

  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
    await loadFolderFileExample(api);
  });
  afterAll(() => server.close());

  const clear = async () => ok(api.request('PUT', `${base}/import?mode=replace`, { version: 1, assertions: [] }));

  it('are created, read, changed, listed and deleted, and their changes are in the audit log', async () => {
    await clear();
    const created = await ok(api.post(base, aliceReadsRoadmap));
    expect(created).toEqual({
      id: expect.any(String),
      name: 'alice reads the roadmap',
      description: null,
      user: { key: 'alice', attributes: null },
      action: 'read',
      resource: { type: 'file', key: 'roadmap', tenant: null, attributes: null },
      context: null,
      expected: 'allow',
    });
    expect(await ok(api.get(`${base}/${created.id}`))).toEqual(created);
    expect(await ok(api.get(`${base}/${created.id.replaceAll('-', '').toUpperCase()}`))).toEqual(created);
    const changed = await ok(api.patch(`${base}/${created.id}`, { expected: 'deny', description: 'not any more', name: null }));
    expect(changed).toMatchObject({ id: created.id, name: null, description: 'not any more', expected: 'deny', user: { key: 'alice' } });
    const second = await ok(
      api.post(base, {
        user: { key: 'bob', attributes: { dept: 'x' } },
        action: 'write',
        resource: { type: 'file', key: 'roadmap', tenant: 'default' },
        expected: 'deny',
      }),
    );
    expect(await ok(api.get(base))).toEqual([changed, second]);
    expect(await ok(api.get(`${base}?include_total_count=true&per_page=1&page=2`))).toEqual({
      data: [second],
      total_count: 2,
      page_count: 2,
    });
    expect((await api.delete(`${base}/${second.id}`)).status).toBe(204);
    expect((await api.get(`${base}/${second.id}`)).status).toBe(404);
    expect((await api.delete(`${base}/${second.id}`)).status).toBe(404);
    const events = await ok(api.get(`/v2/events/default/production?type=AssertionSaved&type=AssertionDeleted`));
    const types = (events.data ?? events).map((e: any) => e.type);
    expect(types).toEqual(expect.arrayContaining(['AssertionSaved', 'AssertionDeleted']));
  });

  it('refuses bad input with a 422 naming the field, and writes nothing', async () => {
    await clear();
    const cases: Array<[unknown, Array<string | number>]> = [
      [{ ...aliceReadsRoadmap, expected: 'maybe' }, ['body', 'expected']],
      [{ ...aliceReadsRoadmap, action: '' }, ['body', 'action']],
      [{ ...aliceReadsRoadmap, user: undefined }, ['body', 'user']],
      [{ ...aliceReadsRoadmap, colour: 'red' }, ['body', 'colour']],
      [{ ...aliceReadsRoadmap, context: 'x' }, ['body', 'context']],
    ];
    for (const [body, loc] of cases) {
      const r = await api.post(base, body);
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    const created = await ok(api.post(base, aliceReadsRoadmap));
    const bad = await api.patch(`${base}/${created.id}`, { expected: 'yes' });
    expect(bad.status).toBe(422);
    expect((await api.patch(`${base}/00000000-0000-0000-0000-000000000000`, { expected: 'deny' })).status).toBe(404);
    expect((await api.get(`${base}/not-an-id`)).status).toBe(404);
    const dup = await api.request('PUT', `${base}/import`, {
      version: 1,
      assertions: [
        { ...aliceReadsRoadmap, id: created.id },
        { ...aliceReadsRoadmap, id: created.id },
      ],
    });
    expect(dup.status).toBe(422);
    expect(dup.body.detail[0].loc).toEqual(['body', 'assertions', 1, 'id']);
    expect((await api.request('PUT', `${base}/import`, { version: 2, assertions: [] })).status).toBe(422);
    expect((await api.post(`${base}/run`, { as_of: 'yesterday' })).status).toBe(422);
    expect(await ok(api.get(base))).toEqual([created]);
  });

  it('run now and as of a past position, with a status a CI job fails on', async () => {
    await clear();
    // The example's tuple: a folder is the parent of a file; an editor of the folder may write the file.
    const tuples = await ok(api.get(`${FACTS}/relationship_tuples`));
    const parent = tuples.find((t: any) => t.object.startsWith('file:'));
    const [file, folder, tenant] = [parent.object, parent.subject, parent.tenant];
    await ok(api.post(`${FACTS}/users`, { key: 'dave' }));
    await ok(api.post(`${FACTS}/role_assignments`, { user: 'dave', role: 'editor', resource_instance: folder, tenant }));
    const passing = await ok(api.post(base, { user: 'dave', action: 'write', resource: file, expected: 'allow' }));
    const failing = await ok(
      api.post(base, { user: 'dave', action: 'write', resource: file, expected: 'deny', name: 'dave may not write' }),
    );
    const position = Number(
      (await api.post('/v2/facts/default/production/users', { key: `p-${Date.now()}` })).headers.get('x-event-position'),
    );

    const run = await api.post(`${base}/run`, undefined);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ passed: false, total: 2, failed: 1 });
    expect(run.body.position).toBeGreaterThanOrEqual(position);
    expect(run.headers.get('x-event-position')).toBe(String(run.body.position));
    expect(run.body.results.map((r: any) => [r.assertion.id, r.actual, r.passed])).toEqual([
      [passing.id, 'allow', true],
      [failing.id, 'allow', false],
    ]);
    const ci = await api.post(`${base}/run?fail_on_mismatch=true`, undefined);
    expect(ci.status).toBe(409);
    expect(ci.body).toMatchObject({
      error_code: 'INVALID_INPUT',
      reason: 'ASSERTIONS_FAILED',
      additional_info: { report: { passed: false, failed: 1 } },
    });
    expect(ci.body.message).toContain('dave may not write');
    const onlyPassing = await api.post(`${base}/run?fail_on_mismatch=true`, { ids: [passing.id] });
    expect(onlyPassing.status).toBe(200);
    expect(onlyPassing.body).toMatchObject({ passed: true, total: 1, failed: 0 });

    // Dave loses the role; as of the position before, the run answers as it did then.
    const assignments = await ok(api.get(`${FACTS}/role_assignments?user=dave`));
    expect(assignments.length).toBeGreaterThan(0);
    const removed = await api.delete(`${FACTS}/role_assignments`, {
      user: 'dave',
      role: 'editor',
      resource_instance: folder,
      tenant,
    });
    expect(removed.status).toBe(204);
    const now = await ok(api.post(`${base}/run`, {}));
    expect(now.results.map((r: any) => r.actual)).toEqual(['deny', 'deny']);
    const then = await ok(api.post(`${base}/run`, { as_of: position }));
    expect(then).toMatchObject({ position, passed: false });
    expect(then.results.map((r: any) => r.actual)).toEqual(['allow', 'allow']);

    // A read-level key (a CI job's) may run them, not change them.
    const envKey = await api.post('/v2/api-key', {
      project_id: 'default',
      environment_id: 'production',
      object_type: 'env',
      access_level: 'read',
      name: 'ci',
    });
    const ciKey = api.withKey(envKey.body.secret);
    expect((await ciKey.post(`${base}/run`, {})).status).toBe(200);
    expect((await ciKey.post(base, aliceReadsRoadmap)).status).toBe(403);
  });

  it('export and import round-trip: replace makes the set the file, merge keeps the others', async () => {
    await clear();
    const a = await ok(api.post(base, aliceReadsRoadmap));
    const b = await ok(
      api.post(base, {
        user: 'bob',
        action: 'read',
        resource: { type: 'folder', key: 'acme', attributes: { x: 1 } },
        context: { ip: '1' },
        expected: 'deny',
      }),
    );
    const file = await ok(api.get(`${base}/export`));
    expect(file).toEqual({ version: 1, assertions: [a, b] });
    // The file goes back unchanged: nothing written.
    const again = await ok(api.request('PUT', `${base}/import`, file));
    expect(again).toMatchObject({ created: 0, updated: 0, deleted: 0, unchanged: 2 });
    await clear();
    expect(await ok(api.get(base))).toEqual([]);
    const restored = await ok(api.request('PUT', `${base}/import`, file));
    expect(restored).toMatchObject({ created: 2, updated: 0, deleted: 0 });
    expect(await ok(api.get(base))).toEqual([a, b]);
    const merged = await ok(
      api.request('PUT', `${base}/import?mode=merge`, {
        version: 1,
        assertions: [
          { ...aliceReadsRoadmap, id: a.id, expected: 'deny' },
          { user: 'eve', action: 'read', resource: 'file', expected: 'deny' },
        ],
      }),
    );
    expect(merged).toMatchObject({ created: 1, updated: 1, deleted: 0, unchanged: 0 });
    expect(merged.assertions.map((x: any) => x.user.key)).toEqual(['alice', 'bob', 'eve']);
    const replaced = await ok(api.request('PUT', `${base}/import`, { version: 1, assertions: [{ ...aliceReadsRoadmap, id: a.id }] }));
    expect(replaced).toMatchObject({ created: 0, updated: 1, deleted: 2 });
    expect(await ok(api.get(base))).toEqual([a]);
  });

  it('are copied with the policy into a new environment (new ids), and not run there against the source', async () => {
    await clear();
    await ok(api.post(base, aliceReadsRoadmap));
    const copy = await api.post('/v2/projects/default/envs/production/copy', {
      target_env: { new: { key: 'with-tests', name: 'With tests' } },
    });
    expect(copy.status).toBe(200);
    const copied = await ok(api.get('/v2/schema/default/with-tests/assertions'));
    const source = await ok(api.get(base));
    expect(copied).toHaveLength(1);
    expect(copied[0].id).not.toBe(source[0].id);
    expect({ ...copied[0], id: null }).toEqual({ ...source[0], id: null });
  });
});
