import { FACTS, SCHEMA, type ApiClient } from '../../support/embedded-server';

/**
 * The OpenID AuthZEN certification scenario's fixture (openid/authzen,
 * certification/authorization-api-1_0-scenario.md, "Required Fixture"), as this
 * service's model states it:
 * - `record` with `read`, `write`, `delete`; `record-1` (`status: active`) and
 *   `record-2` (`status: archived`); users `alice` and `bob` (`role: admin`).
 * - Rules 1-4 (identifiers only): alice is `editor` (read, write) of record-1,
 *   bob its `reader` (read).
 * - Rules 5-6: a set rule lets the `admins` user set (`user.role` is `admin`)
 *   write `archived` records (`resource.status` is `archived`); alice holds no
 *   role on record-2, so she may not write it.
 * - Rules 7-8: a set rule lets `soft-deleters` (`context.soft` is true, which
 *   the action's `properties.soft` reaches) delete any record.
 */
export async function loadAuthzenFixture(api: ApiClient): Promise<void> {
  const ok = async (p: Promise<{ status: number; body: unknown }>) => {
    const r = await p;
    if (r.status !== 200 && r.status !== 201) throw new Error(`fixture: ${r.status} ${JSON.stringify(r.body)}`);
  };
  await ok(
    api.post(`${SCHEMA}/resources`, {
      key: 'record',
      name: 'Record',
      actions: { read: {}, write: {}, delete: {} },
      attributes: { status: { type: 'string' } },
    }),
  );
  await ok(api.post(`${SCHEMA}/resources/record/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] }));
  await ok(api.post(`${SCHEMA}/resources/record/roles`, { key: 'reader', name: 'Reader', permissions: ['read'] }));
  // PUT: the users may exist already (an assignment makes its user).
  await ok(api.request('PUT', `${FACTS}/users/alice`, { key: 'alice' }));
  await ok(api.request('PUT', `${FACTS}/users/bob`, { key: 'bob', attributes: { role: 'admin' } }));
  await ok(
    api.post(`${FACTS}/resource_instances`, { key: 'record-1', resource: 'record', tenant: 'default', attributes: { status: 'active' } }),
  );
  await ok(
    api.post(`${FACTS}/resource_instances`, { key: 'record-2', resource: 'record', tenant: 'default', attributes: { status: 'archived' } }),
  );
  await ok(api.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'editor', resource_instance: 'record:record-1' }));
  await ok(api.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'reader', resource_instance: 'record:record-1' }));
  await ok(
    api.post(`${SCHEMA}/condition_sets`, { key: 'admins', name: 'Admins', conditions: { allOf: [{ 'user.role': { equals: 'admin' } }] } }),
  );
  await ok(
    api.post(`${SCHEMA}/condition_sets`, {
      key: 'archived',
      name: 'Archived records',
      type: 'resourceset',
      resource_id: 'record',
      conditions: { allOf: [{ 'resource.status': { equals: 'archived' } }] },
    }),
  );
  await ok(api.post(`${FACTS}/set_rules`, { user_set: 'admins', permission: 'record:write', resource_set: 'archived' }));
  await ok(
    api.post(`${SCHEMA}/condition_sets`, {
      key: 'soft-deleters',
      name: 'Soft deletes',
      conditions: { allOf: [{ 'context.soft': { equals: true } }] },
    }),
  );
  await ok(
    api.post(`${FACTS}/set_rules`, { user_set: 'soft-deleters', permission: 'record:delete', resource_set: 'record', is_resource: true }),
  );
}
