import { FACTS, loadFolderFileExample, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * The dry run of a model edit (docs/assertions.md, "Dry run"): the assertions an edit flips and
 * the sample's decisions it changes, computed on a scratch copy; the environment's log, model,
 * read models and answers are the same after it.
 */
describe('dry run of a model edit', () => {
  let server: TestServer;
  let api: ApiClient;
  /** An environment key (checks need one). */
  let envApi: ApiClient;
  const base = `${SCHEMA}/assertions`;
  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  // The file editor loses `write`: alice (editor of folder:docs, the readme's parent) no longer writes the readme.
  const dropWrite = { method: 'PATCH', path: `${SCHEMA}/resources/file/roles/editor`, body: { permissions: ['read'] } };

  /** What must not move: the log's head, the environment's audit log, its model, its facts, a check and a run. */
  const observed = async () => ({
    head: (await ok(api.get('/readyz'))).position,
    events: await ok(api.get('/v2/events/default/production')),
    model: await ok(api.get(`${SCHEMA}/resources`)),
    editor: await ok(api.get(`${SCHEMA}/resources/file/roles/editor`)),
    assignments: await ok(api.get(`${FACTS}/role_assignments`)),
    check: (
      await ok(envApi.post('/allowed', { user: 'alice', action: 'write', resource: { type: 'file', key: 'readme', tenant: 'acme' } }))
    ).allow,
    run: (await ok(api.post(`${base}/run`, {}))).results.map((r: any) => r.actual),
  });

  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
    await loadFolderFileExample(api);
    envApi = await api.environmentClient();
    await ok(api.post(`${FACTS}/users`, { key: 'bob' }));
    await ok(
      api.post(base, { name: 'alice writes the readme', user: 'alice', action: 'write', resource: 'file:readme', expected: 'allow' }),
    );
    await ok(api.post(base, { name: 'alice reads the readme', user: 'alice', action: 'read', resource: 'file:readme', expected: 'allow' }));
  });
  afterAll(() => server.close());

  it("reports the flipped assertions and the sample's changed decisions, and changes nothing of the environment", async () => {
    const before = await observed();
    expect(before.check).toBe(true);
    const r = await api.post(`${base}/dry_run`, { edits: [dropWrite] });
    expect(r.status).toBe(200);
    const report = r.body;
    expect(report.position).toBeGreaterThan(0);
    expect(r.headers.get('x-event-position')).toBe(String(report.position));
    expect(report.edits).toEqual([{ method: 'PATCH', path: dropWrite.path, status: 200 }]);
    expect(report.assertions.total).toBe(2);
    expect(report.assertions.flipped.map((f: any) => [f.assertion.name, f.expected, f.before, f.after, f.passes_after])).toEqual([
      ['alice writes the readme', 'allow', 'allow', 'deny', false],
    ]);
    expect(report.decisions.sample).toEqual({
      users: ['alice', 'bob'],
      resources: ['folder:docs', 'file:readme'], // by key: docs, readme
      checks: 2 * (3 + 2), // two users × (the folder's three actions + the file's two)
      truncated: false,
    });
    expect(report.decisions.changed).toEqual([
      { user: 'alice', action: 'write', resource: 'file:readme', tenant: 'acme', before: 'allow', after: 'deny' },
    ]);
    expect(await observed()).toEqual(before);
  });

  it('bounds the sample as asked, and runs several edits in order', async () => {
    // With an environment key (a CI job's), which the copy knows as the environment does.
    const r = await ok(
      envApi.post(`${base}/dry_run`, {
        edits: [
          { method: 'POST', path: `${SCHEMA}/resources/file/roles`, body: { key: 'reader', name: 'Reader', permissions: ['read'] } },
          { method: 'POST', path: `${FACTS}/role_assignments`, body: { user: 'bob', role: 'reader', resource_instance: 'file:readme' } },
        ],
        sample: { users: 1, resources: 0 },
      }),
    );
    expect(r.edits.map((e: any) => e.status)).toEqual([200, 200]);
    expect(r.decisions.sample).toEqual({ users: ['alice'], resources: [], checks: 0, truncated: false });
    expect(r.assertions.flipped).toEqual([]);
    const all = await ok(api.post(`${base}/dry_run`, { edits: [dropWrite], sample: { users: 100, resources: 100 } }));
    expect(all.decisions.sample.users).toEqual(['alice', 'bob']);
    expect((await ok(api.get(`${SCHEMA}/resources/file/roles`))).map((x: any) => x.key).sort()).toEqual(['editor', 'viewer']);
  });

  it('refuses bad input with a 422 naming it, an edit the copy refuses included, and writes nothing', async () => {
    const before = await observed();
    const cases: Array<[unknown, Array<string | number>]> = [
      [{ edits: [] }, ['body', 'edits']],
      [{}, ['body', 'edits']],
      [{ edits: [{ ...dropWrite, method: 'GET' }] }, ['body', 'edits', 0, 'method']],
      [{ edits: [{ ...dropWrite, path: '/v2/schema/default/other-env/resources' }] }, ['body', 'edits', 0, 'path']],
      [{ edits: [{ ...dropWrite, path: '/v2/projects' }] }, ['body', 'edits', 0, 'path']],
      // Normalised before it is checked: no way out of the environment's paths, nor to another host.
      [{ edits: [{ ...dropWrite, path: `${SCHEMA}/../../../projects` }] }, ['body', 'edits', 0, 'path']],
      [{ edits: [{ ...dropWrite, path: `//example.com${SCHEMA}/resources` }] }, ['body', 'edits', 0, 'path']],
      [{ edits: [{ ...dropWrite, path: `/v2/schema/%E0%A4%A/production/resources` }] }, ['body', 'edits', 0, 'path']],
      [{ edits: [{ ...dropWrite, path: `${SCHEMA}/resources/%E0%A4%A` }] }, ['body', 'edits', 0]],
      [{ edits: [dropWrite], sample: { users: 101 } }, ['body', 'sample', 'users']],
      [{ edits: [dropWrite], colour: 'red' }, ['body', 'colour']],
      [{ edits: [dropWrite, { method: 'PATCH', path: `${SCHEMA}/resources/file/roles/nobody`, body: {} }] }, ['body', 'edits', 1]],
      [{ edits: [{ method: 'POST', path: `${SCHEMA}/resources`, body: { key: 'x' } }] }, ['body', 'edits', 0]],
    ];
    for (const [body, loc] of cases) {
      const r = await api.post(`${base}/dry_run`, body);
      expect([r.status, r.body.detail?.map((d: any) => d.loc)]).toEqual([422, expect.arrayContaining([loc])]);
    }
    const refused = await api.post(`${base}/dry_run`, {
      edits: [{ method: 'PATCH', path: `${SCHEMA}/resources/file/roles/nobody`, body: {} }],
    });
    expect(refused.body.detail[0].msg).toContain('was refused on the scratch copy with 404');
    expect(await observed()).toEqual(before);
  });

  it('needs a key that may write (the edits are writes, made with it on the copy)', async () => {
    const created = await ok(
      api.post('/v2/api-key', {
        project_id: 'default',
        environment_id: 'production',
        object_type: 'env',
        access_level: 'read',
        name: 'ro',
      }),
    );
    expect((await api.withKey(created.secret).post(`${base}/dry_run`, { edits: [dropWrite] })).status).toBe(403);
  });
});
