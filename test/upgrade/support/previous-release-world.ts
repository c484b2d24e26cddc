import type { ApiClient, TestServer } from '../../support/embedded-server';
import { documentSchema, Scenario } from '../../grants/support/scenario';

/**
 * A small world written through the API, with updates and deletes, and the answers a release gives
 * about it now and as of the positions between its steps: what `make-fixture.ts` records with the
 * previous release (into test/upgrade/fixtures/), and what the upgrade test asks the current one
 * on the same data directory. The file is run by both releases, so it uses only what both have.
 */

export const ENV_KEY = 'upgrade';
/** The organisation's admin key in the fixture (ADMIN_API_KEY when it was written). */
export const FIXTURE_ADMIN_KEY = 'permit_key_upgradefixtureadminkey000000000000000000';

/** Writes the world; returns the log positions after each step (the moments the answers are taken at). */
export async function writeWorld(server: TestServer): Promise<number[]> {
  const s = await Scenario.create(server, ENV_KEY);
  const moments: number[] = [];
  // A check's receipt: the position of the read models it was decided on (every write before it is in them).
  const moment = async () =>
    moments.push(
      Number((await s.api.post('/allowed', { user: 'alice', action: 'read', resource: 'account:a' })).headers.get('x-event-position')),
    );
  await documentSchema(s);
  await s.tenantRole('reader', ['document:read']);
  await s.instance('account:a', 'acme');
  await s.instance('folder:top', 'acme');
  await s.instance('folder:sub', 'acme');
  await s.instance('document:d', 'acme');
  await s.instance('document:e', 'globex');
  await s.tuple('account:a', 'account', 'folder:top');
  await s.tuple('folder:top', 'parent', 'folder:sub');
  await s.tuple('folder:sub', 'parent', 'document:d');
  await s.assign('alice', 'admin', 'account:a');
  await s.assign('bob', 'viewer', 'folder:top');
  await s.assign('carol', 'editor', 'document:e');
  await s.assignTenantRole('dave', 'reader', 'acme');
  await moment();
  // Updates: a user's attributes, a tenant's name, a role's permissions, an instance's attributes.
  await s.ok(s.api.patch(`${s.facts}/users/alice`, { attributes: { department: 'legal' } }));
  await s.ok(s.api.patch(`${s.facts}/tenants/globex`, { name: 'Globex Corporation' }));
  await s.ok(s.api.patch(`${s.schema}/resources/document/roles/editor`, { permissions: ['read'] }));
  await s.ok(s.api.patch(`${s.facts}/resource_instances/document:d`, { attributes: { size: 3 } }));
  await moment();
  // Deletes: a tuple two hops up, an assignment, then an instance (with its tuples and assignments) and a role.
  await s.untuple('folder:top', 'parent', 'folder:sub');
  await s.unassign('bob', 'viewer', 'folder:top');
  await moment();
  await s.tuple('folder:top', 'parent', 'folder:sub');
  await s.ok(s.api.delete(`${s.facts}/resource_instances/document:e`));
  await s.ok(s.api.delete(`${s.schema}/resources/account/roles/admin`));
  await s.ok(s.api.delete(`${s.facts}/users/carol`));
  await moment();
  return moments;
}

const USERS = ['alice', 'bob', 'carol', 'dave'];
const RESOURCES = ['account:a', 'folder:top', 'folder:sub', 'document:d', 'document:e'];
const ACTIONS = ['read', 'write', 'manage'];

/** Every check, user-permissions answer and read of the world, now or as of `asOf`. */
export async function answers(api: ApiClient, asOf?: number): Promise<Record<string, unknown>> {
  const env = await api.environmentClient('default', ENV_KEY);
  const schema = `/v2/schema/default/${ENV_KEY}`;
  const facts = `/v2/facts/default/${ENV_KEY}`;
  const extra = asOf === undefined ? {} : { as_of: asOf };
  const query = asOf === undefined ? '' : `as_of=${asOf}`;
  const get = async (path: string) => {
    const r = await env.get(query === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${query}`);
    // An error's id is new each time: its status and code are what it answers.
    return r.status === 200 ? { status: r.status, body: r.body } : { status: r.status, error_code: r.body.error_code };
  };
  const out: Record<string, unknown> = {};
  for (const user of USERS)
    for (const resource of RESOURCES)
      for (const action of ACTIONS)
        out[`${user} ${action} ${resource}`] = (await env.post('/allowed', { user, action, resource, ...extra })).body.allow;
  for (const user of USERS) out[`permissions of ${user}`] = (await env.post('/user-permissions', { user: { key: user }, ...extra })).body;
  for (const path of [
    `${schema}/resources`,
    `${schema}/roles`,
    `${schema}/resources/document/roles`,
    `${facts}/tenants`,
    `${facts}/users`,
    `${facts}/users?per_page=2&page=2`,
    `${facts}/resource_instances`,
    `${facts}/role_assignments`,
    `${facts}/relationship_tuples?include_total_count=true`,
    `${facts}/users/alice`,
    `${facts}/users/carol`,
    `${facts}/tenants/globex`,
    `${facts}/resource_instances/document:d`,
  ])
    out[`GET ${path}`] = await get(path);
  return out;
}
