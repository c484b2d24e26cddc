import { idRange, userGrantIds } from '../../shared/read-models/grants/model';
import { readStoresOf } from '../../shared/read-stores/port';
import { startTestServer, type TestServer } from '../support/embedded-server';
import { Scenario } from './support/scenario';

const FILES = 1500;

/** A role on a folder with many files: every file becomes editable at once, and stops being so at once. */
describe('fan-out of a derived role over a large folder', () => {
  let server: TestServer;
  let s: Scenario;
  const files = Array.from({ length: FILES }, (_, i) => `file:f${i}`);
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'fanout');
    await s.resource('folder', ['read', 'write']);
    await s.resource('file', ['read', 'write']);
    await s.role('folder', 'editor', ['read', 'write']);
    await s.role('file', 'editor', ['read', 'write']);
    await s.relation('file', 'parent', 'folder');
    await s.derive('file', 'editor', 'folder', 'editor', 'parent');
    await s.tenant('acme');
    await s.instance('folder:big', 'acme');
    await s.ok(
      s.api.request('PUT', `${s.facts}/bulk/resource_instances`, {
        operations: files.map((f) => ({ resource: 'file', key: f.slice(5), tenant: 'acme' })),
      }),
    );
    await s.ok(
      s.api.post(`${s.facts}/relationship_tuples/bulk`, {
        operations: files.map((f) => ({ subject: 'folder:big', relation: 'parent', object: f })),
      }),
    );
  });
  afterAll(() => server.close());

  /** Bulk-checks `write` on every file for `user`; returns how many are allowed. */
  async function editable(user: string): Promise<number> {
    let allowed = 0;
    for (let i = 0; i < files.length; i += 1000) {
      const r = await s.api.post(
        '/allowed/bulk',
        files.slice(i, i + 1000).map((f) => ({ user, action: 'write', resource: f })),
      );
      allowed += (r.body.allow as Array<{ allow: boolean }>).filter((a) => a.allow).length;
    }
    return allowed;
  }

  it('makes every file editable when editor is granted on the folder, and none when it is taken away', async () => {
    const store = readStoresOf(server.service.documentStore).grants;
    const environmentId = (await s.api.get('/v2/projects/default/envs/fanout')).body.id as string;
    const grants = {
      count: async ({ user }: { user: string }) => (await store.userRange(idRange(userGrantIds(environmentId, user, null)))).length,
    };
    expect(await editable('alice')).toBe(0);
    await s.assign('alice', 'editor', 'folder:big');
    expect(await editable('alice')).toBe(FILES);
    // file#editor is a sink role (no rule starts from it): the files' grants are implied by the folder's, not stored.
    expect(await grants.count({ user: 'alice' })).toBe(1);

    // A second path to a few files (diamond) keeps exactly those when the folder role goes.
    await s.instance('folder:small', 'acme');
    for (const f of files.slice(0, 5)) await s.tuple('folder:small', 'parent', f);
    await s.assign('alice', 'editor', 'folder:small');
    await s.unassign('alice', 'editor', 'folder:big');
    expect(await editable('alice')).toBe(5);
    expect(await grants.count({ user: 'alice' })).toBe(1);
  });

  it('lists all of them through user-permissions pages without losing any', async () => {
    await s.assign('bob', 'editor', 'folder:big');
    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const r = await s.api.post('/user-permissions', { user: 'bob', limit: 400, ...(cursor ? { cursor } : {}) });
      seen.push(...Object.keys(r.body.result.permissions));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(FILES + 1);
    expect(new Set(seen).size).toBe(FILES + 1);
  });
});
