import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';
import { environmentCopyFeature } from '../../app/features/environment-copy';
import { environmentView, policyOf } from './support/environment-view';

/** Seed endpoints 8 and 9 over HTTP, on the embedded service with the copy feature. */
describe('environment copy over HTTP', () => {
  let server: TestServer;
  let api: ApiClient;
  let envApi: ApiClient;
  const copyPath = (env = 'production') => `/v2/projects/default/envs/${env}/copy/async`;
  const resultPath = (taskId: string, env = 'production') => `${copyPath(env)}/${taskId}/result`;

  beforeAll(async () => {
    server = await startTestServer({ features: [environmentCopyFeature()] });
    api = server.api;
    envApi = await api.environmentClient();
    await loadFolderFileExample(envApi);
  });
  afterAll(() => server.close());

  async function pollUntilDone(taskId: string, env = 'production') {
    for (let i = 0; i < 200; i++) {
      const r = await api.get(resultPath(taskId, env));
      expect(r.status).toBe(200);
      if (r.body.status !== 'processing') return r.body;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`task ${taskId} still processing`);
  }

  it('copies the policy into a new environment and answers with the environment when waited for', async () => {
    const started = await api.post(`${copyPath()}?wait=10`, {
      target_env: { new: { key: 'staging', name: 'Staging', description: 'copy of production' } },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ task_id: expect.any(String), status: 'success', error: null });
    const env = started.body.result;
    expect(Object.keys(env).sort()).toEqual([
      'avp_policy_store_id',
      'created_at',
      'custom_branch_name',
      'description',
      'id',
      'jwks',
      'key',
      'name',
      'organization_id',
      'project_id',
      'settings',
      'updated_at',
    ]);
    expect(env).toMatchObject({
      key: 'staging',
      name: 'Staging',
      description: 'copy of production',
      jwks: {},
      settings: {},
      // Not given: null, as Permit answers (EnvironmentRead's Optional fields).
      avp_policy_store_id: null,
      custom_branch_name: null,
    });
    const listed = await api.get(`/v2/projects/default/envs/staging`);
    expect(listed.body).toEqual(env);

    const [source, copy] = await Promise.all([environmentView(api, 'production'), environmentView(api, 'staging')]);
    expect(policyOf(copy)).toEqual(policyOf(source));
    expect(source.tuples).toHaveLength(1);
    // The default scope is the policy only, as Permit's copy; the new environment has its own `default` tenant.
    expect((copy.tenants as Array<{ key: string }>).map((t) => t.key)).toEqual(['default']);
    expect(copy.instances).toEqual([]);
    expect(copy.tuples).toEqual([]);

    // Copied objects are new objects: new ids, of the new environment.
    const [sourceRole, copiedRole] = await Promise.all([
      api.get(`${SCHEMA}/resources/file/roles/editor`),
      api.get('/v2/schema/default/staging/resources/file/roles/editor'),
    ]);
    expect(copiedRole.body.id).not.toBe(sourceRole.body.id);
    expect(copiedRole.body.environment_id).toBe(env.id);
    expect(copiedRole.body.granted_to.users_with_role[0].role_id).not.toBe(sourceRole.body.granted_to.users_with_role[0].role_id);
  });

  it('copies policy and facts with scope.facts, and the copy reads the same as the source', async () => {
    const done = await api.post(`${copyPath()}?wait=10`, {
      target_env: { new: { key: 'with-facts', name: 'With facts' } },
      scope: { facts: true },
    });
    expect(done.body.status).toBe('success');
    const [source, copy] = await Promise.all([environmentView(api, 'production'), environmentView(api, 'with-facts')]);
    expect(copy).toEqual(source);
    expect(copy.assignments).toEqual([expect.objectContaining({ user: 'alice', role: 'editor', resource_instance: 'folder:docs' })]);
    expect(done.body.progress).toMatchObject({ events_copied: expect.any(Number) });
    expect(done.body.progress.events_copied).toBeGreaterThan(10);
  });

  it('reports success when polled without wait', async () => {
    const started = await api.post(copyPath(), { target_env: { new: { key: 'polled', name: 'Polled' } } });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      task_id: expect.any(String),
      status: 'processing',
      result: null,
      error: null,
      progress: expect.objectContaining({ events_copied: 0 }),
    });
    const done = await pollUntilDone(started.body.task_id);
    expect(done).toMatchObject({
      task_id: started.body.task_id,
      status: 'success',
      error: null,
      result: expect.objectContaining({ key: 'polled' }),
    });
  });

  it('fails the task with NOT_FOUND naming a source environment that does not exist', async () => {
    const started = await api.post(copyPath('no-such-env'), { target_env: { new: { key: 'from-nothing', name: 'X' } } });
    expect(started.status).toBe(202);
    const result = await api.get(`${resultPath(started.body.task_id, 'no-such-env')}?wait=10`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ task_id: started.body.task_id, status: 'failure', result: null });
    expect(result.body.error).toMatchObject({
      id: started.body.task_id,
      error_code: 'NOT_FOUND',
      title: expect.any(String),
      support_link: expect.stringMatching(/^https?:\/\//),
    });
    expect(result.body.error.message).toContain("'no-such-env'");
    expect((await api.get('/v2/projects/default/envs/from-nothing')).status).toBe(404);
  });

  it('fails the task with DUPLICATE_ENTITY when the new key is taken, and changes nothing', async () => {
    const before = await environmentView(api, 'production');
    const result = await api.post(`${copyPath()}?wait=10`, { target_env: { new: { key: 'production', name: 'Again' } } });
    expect(result.status).toBe(202);
    expect(result.body).toMatchObject({ status: 'failure', result: null, error: { error_code: 'DUPLICATE_ENTITY' } });
    expect(result.body.error.message).toContain("'production'");
    expect(await environmentView(api, 'production')).toEqual(before);
  });

  it('answers 404 for an unknown task, and for a task asked for under another source environment', async () => {
    expect((await api.get(resultPath('3f0c9c0e-0000-4000-8000-000000000000'))).status).toBe(404);
    const done = await api.post(`${copyPath()}?wait=10`, { target_env: { new: { key: 'for-404', name: 'X' } } });
    expect((await api.get(resultPath(done.body.task_id, 'for-404'))).status).toBe(404);
    const sourceId = (await api.get('/v2/projects/default/envs/production')).body.id;
    expect((await api.get(resultPath(done.body.task_id, sourceId))).status).toBe(200);
  });

  it('refuses environment-level keys with 403', async () => {
    const started = await envApi.post(copyPath(), { target_env: { new: { key: 'by-env-key', name: 'X' } } });
    expect(started.status).toBe(403);
    expect(started.body.error_code).toBe('FORBIDDEN_ACCESS');
    expect((await api.get('/v2/projects/default/envs/by-env-key')).status).toBe(404);
  });

  it('accepts a project-level key', async () => {
    const key = await api.post('/v2/api-key', { project_id: 'default', object_type: 'project', name: 'project key' });
    const projectApi = api.withKey(key.body.secret);
    const done = await projectApi.post(`${copyPath()}?wait=10`, { target_env: { new: { key: 'by-project-key', name: 'X' } } });
    expect(done.body.status).toBe('success');
    expect((await projectApi.get(resultPath(done.body.task_id))).body.status).toBe('success');
  });

  it.each([['61'], ['-1'], ['abc'], ['1.5']])('refuses wait=%s with 422', async (wait) => {
    const started = await api.post(`${copyPath()}?wait=${wait}`, { target_env: { new: { key: 'never', name: 'X' } } });
    expect(started.status).toBe(422);
    expect(started.body.detail[0].loc).toEqual(['query', 'wait']);
    const result = await api.get(`${resultPath('3f0c9c0e-0000-4000-8000-000000000000')}?wait=${wait}`);
    expect(result.status).toBe(422);
  });

  it('refuses invalid bodies with 422', async () => {
    const cases = [
      {},
      { target_env: {} },
      { target_env: { new: { key: 'a', name: 'A' }, existing: 'production' } },
      { target_env: { new: { key: 'bad key', name: 'A' } } },
      { target_env: { new: { key: 'a', name: 'A' } }, scope: { resources: { include: 'doc' } } },
      { target_env: { new: { key: 'a', name: 'A' } }, scope: { roles: { only: ['x'] } } },
      { target_env: { new: { key: 'a', name: 'A' } }, scope: { fact: true } },
      { target_env: { new: { key: 'a', name: 'A' } }, asOf: 1 },
      { target_env: { new: { key: 'a', name: 'A' } }, as_of: 'yesterday' },
      { target_env: { new: { key: 'a', name: 'A' } }, as_of: 10 ** 12 },
      { target_env: { existing: 'production' } },
    ];
    for (const body of cases) {
      const r = await api.post(copyPath(), body);
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect(r.body.detail).toEqual(expect.any(Array));
    }
  });

  it('copies the source as of a log position or a time', async () => {
    // A second environment, so that its history is ours alone.
    expect((await api.post('/v2/projects/default/envs', { key: 'history', name: 'History' })).status).toBe(200);
    const schema = '/v2/schema/default/history';
    await api.post(`${schema}/resources`, { key: 'doc', name: 'Doc', actions: { read: {} } });
    const first = await api.post(`${schema}/resources/doc/roles`, { key: 'reader', name: 'Reader', permissions: ['read'] });
    const position = Number(first.headers.get('x-event-position'));
    expect(position).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 20));
    const time = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await api.post(`${schema}/resources/doc/roles`, { key: 'writer', name: 'Writer', permissions: ['read'] });
    await api.patch(`${schema}/resources/doc/roles/reader`, { name: 'Renamed reader' });

    const byPosition = await api.post(`${copyPath('history')}?wait=10`, {
      target_env: { new: { key: 'history-at-position', name: 'X' } },
      as_of: position,
    });
    const byTime = await api.post(`${copyPath('history')}?wait=10`, {
      target_env: { new: { key: 'history-at-time', name: 'X' } },
      as_of: time,
    });
    const now = await api.post(`${copyPath('history')}?wait=10`, { target_env: { new: { key: 'history-now', name: 'X' } } });
    for (const r of [byPosition, byTime, now]) expect(r.body.status).toBe('success');
    const roles = async (env: string) =>
      ((await api.get(`/v2/schema/default/${env}/resources/doc/roles`)).body as Array<{ key: string; name: string }>)
        .map((r) => `${r.key}:${r.name}`)
        .sort();
    expect(await roles('history-at-position')).toEqual(['reader:Reader']);
    expect(await roles('history-at-time')).toEqual(['reader:Reader']);
    expect(await roles('history-now')).toEqual(['reader:Renamed reader', 'writer:Writer']);

    // Before the environment existed, there was nothing to copy.
    const tooEarly = await api.post(`${copyPath('history')}?wait=10`, {
      target_env: { new: { key: 'history-too-early', name: 'X' } },
      as_of: 1,
    });
    expect(tooEarly.body).toMatchObject({ status: 'failure', error: { error_code: 'NOT_FOUND' } });
  });

  describe('into an existing environment', () => {
    const qa = '/v2/schema/default/qa';
    beforeAll(async () => {
      expect((await api.post('/v2/projects/default/envs', { key: 'qa', name: 'QA' })).status).toBe(200);
      await api.post(`${qa}/resources`, { key: 'folder', name: 'Folder', actions: { read: {}, write: {}, share: {} } });
      // Same key as the source's folder#editor, another definition: a conflict.
      await api.post(`${qa}/resources/folder/roles`, { key: 'editor', name: 'QA editor', permissions: ['read'] });
      // Only in the target: kept by every strategy.
      await api.post(`${qa}/resources/folder/roles`, { key: 'auditor', name: 'Auditor', permissions: ['read'] });
    });

    it('with conflict_strategy fail (the default) fails with DUPLICATE_ENTITY and changes nothing', async () => {
      const before = await environmentView(api, 'qa');
      const r = await api.post(`${copyPath()}?wait=10`, { target_env: { existing: 'qa' } });
      expect(r.body).toMatchObject({ status: 'failure', result: null, error: { error_code: 'DUPLICATE_ENTITY' } });
      expect(r.body.error.message).toContain("role 'folder#editor'");
      expect(await environmentView(api, 'qa')).toEqual(before);
    });

    it('with conflict_strategy overwrite replaces conflicts, adds what is missing and keeps target-only objects', async () => {
      const r = await api.post(`${copyPath()}?wait=10`, {
        target_env: { existing: 'qa' },
        conflict_strategy: 'overwrite',
        scope: { facts: true },
      });
      expect(r.body).toMatchObject({ status: 'success', error: null, result: expect.objectContaining({ key: 'qa' }) });
      const [source, target] = await Promise.all([environmentView(api, 'production'), environmentView(api, 'qa')]);
      const auditor = target.roles.find((role) => (role as { key: string }).key === 'auditor');
      expect(auditor).toMatchObject({ name: 'Auditor', resource: 'folder' });
      expect({ ...target, roles: target.roles.filter((role) => role !== auditor) }).toEqual(source);

      // Copying again finds nothing to change, so even `fail` succeeds now.
      const again = await api.post(`${copyPath()}?wait=10`, { target_env: { existing: 'qa' }, scope: { facts: true } });
      expect(again.body.status).toBe('success');
      expect(again.body.progress.events_copied).toBe(0);
      expect(await environmentView(api, 'qa')).toEqual(target);
    });

    it('fails with NOT_FOUND for an existing target that does not exist', async () => {
      const r = await api.post(`${copyPath()}?wait=10`, { target_env: { existing: 'nowhere' } });
      expect(r.body).toMatchObject({ status: 'failure', error: { error_code: 'NOT_FOUND' } });
      expect(r.body.error.message).toContain("'nowhere'");
    });
  });

  it('copies an untouched source into identical read models for a seed-sized facts example', async () => {
    const facts = FACTS;
    await envApi.post(`${facts}/resource_instances`, { key: 'notes', resource: 'file', tenant: 'acme' });
    await envApi.post(`${facts}/relationship_tuples`, { subject: 'folder:docs', relation: 'parent', object: 'file:notes' });
    await envApi.post(`${facts}/role_assignments`, { user: 'bob', role: 'viewer', resource_instance: 'folder:docs' });
    await envApi.delete(`${facts}/role_assignments`, { user: 'bob', role: 'viewer', resource_instance: 'folder:docs' });
    const r = await api.post(`${copyPath()}?wait=10`, { target_env: { new: { key: 'after-deletes', name: 'X' } }, scope: { facts: true } });
    expect(r.body.status).toBe('success');
    expect(await environmentView(api, 'after-deletes')).toEqual(await environmentView(api, 'production'));
  });
});
