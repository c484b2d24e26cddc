import { SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * Which error a client gets when several things are wrong at once. Each
 * handler checks in its own order (body, the path's objects, the key, the
 * query); these pin that order so that declaring routes differently cannot
 * quietly change it.
 */
describe('which error wins when several things are wrong', () => {
  let server: TestServer;
  let orgApi: ApiClient;
  let envApi: ApiClient;
  const locs = (body: { detail: Array<{ loc: Array<string | number> }> }) => body.detail.map((d) => d.loc.join('.'));

  beforeAll(async () => {
    server = await startTestServer();
    orgApi = server.api;
    envApi = await orgApi.environmentClient();
  });
  afterAll(() => server.close());

  it('an invalid body is reported before a missing resource in the path', async () => {
    const r = await envApi.post(`${SCHEMA}/resources/nope/roles`, { name: 'No key' });
    expect(r.status).toBe(422);
    expect(locs(r.body)).toEqual(['body.key']);
  });

  it('a missing object in the path is reported before an invalid query of a list', async () => {
    expect((await envApi.get(`${SCHEMA}/resources/nope/roles?per_page=0`)).status).toBe(404);
    expect((await envApi.get(`${SCHEMA}/resources/nope/relations?per_page=0`)).status).toBe(404);
    expect((await orgApi.get('/v2/projects/nope/envs?per_page=0')).status).toBe(404);
  });

  it('an environment key listing environments gets its own environment; the paging query is not read', async () => {
    const r = await envApi.get('/v2/projects/default/envs?per_page=0');
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
  });

  it('checks: the body is reported before the query, and both before the key', async () => {
    const one = await orgApi.post('/allowed?explain=maybe', { action: 'read' });
    expect(one.status).toBe(422);
    expect(locs(one.body)).toEqual(['body.user', 'body.resource']);
    const bulk = await orgApi.post('/allowed/bulk?explain=maybe', [{ action: 'read' }]);
    expect(bulk.status).toBe(422);
    expect(locs(bulk.body)).toEqual(['body.0.user', 'body.0.resource']);
    const badQuery = await orgApi.post('/allowed/bulk?explain=maybe', []);
    expect(badQuery.status).toBe(422);
    expect(locs(badQuery.body)).toEqual(['query.explain']);
  });

  it('a check with explain in the body does not read the query', async () => {
    const r = await envApi.post('/allowed?explain=maybe', { user: 'u', action: 'read', resource: 'doc:d', explain: false });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ allow: false });
  });

  it('copy: an environment key is refused before the body is read; the async form reads `wait` first', async () => {
    const copy = '/v2/projects/default/envs/production/copy';
    expect((await envApi.post(copy, { nonsense: true })).status).toBe(403);
    expect((await envApi.post(`${copy}/async`, { nonsense: true })).status).toBe(403);
    const badWait = await envApi.post(`${copy}/async?wait=soon`, { nonsense: true });
    expect(badWait.status).toBe(422);
    expect(locs(badWait.body)).toEqual(['query.wait']);
    expect((await envApi.get(`${copy}/async/some-task/result?wait=soon`)).status).toBe(403);
    const orgBadBoth = await orgApi.post(`${copy}/async?wait=soon`, { nonsense: true });
    expect(locs(orgBadBoth.body)).toEqual(['query.wait']);
  });
});
