import { MAX_JSON_DEPTH, MAX_JSON_FIELD_BYTES } from '../../command-service/http/validation';
import { FACTS, SCHEMA, startTestServer, type ApiClient, type ApiResponse, type TestServer } from '../support/embedded-server';

/** `{"a":{"a":…1…}}`: `depth` nested objects. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
/** The same as text, for depths JSON.stringify cannot reach. */
const nestedText = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
/** An object whose JSON is exactly `bytes` long. */
const ofSize = (bytes: number) => ({ x: 'a'.repeat(bytes - '{"x":""}'.length) });

/** Each free-form JSON field: where it goes in a request, and its `loc` in a 422. */
interface Field {
  name: string;
  method: string;
  path: string;
  body: (value: unknown) => unknown;
  loc: Array<string | number>;
}
const fields: Field[] = [
  {
    name: 'tenant attributes',
    method: 'POST',
    path: `${FACTS}/tenants`,
    body: (v) => ({ key: 't', name: 'T', attributes: v }),
    loc: ['attributes'],
  },
  { name: 'user attributes', method: 'POST', path: `${FACTS}/users`, body: (v) => ({ key: 'u', attributes: v }), loc: ['attributes'] },
  // A resource's attributes are typed definitions and an action's `attributes` are refused: the free-form field there is an inline role's.
  {
    name: 'inline role attributes',
    method: 'POST',
    path: `${SCHEMA}/resources`,
    body: (v) => ({ key: 'doc', name: 'Doc', actions: {}, roles: { r: { attributes: v } } }),
    loc: ['roles', 'r', 'attributes'],
  },
  {
    name: 'role attributes',
    method: 'POST',
    path: `${SCHEMA}/resources/folder/roles`,
    body: (v) => ({ key: 'r', name: 'R', attributes: v }),
    loc: ['attributes'],
  },
  {
    name: 'role attributes (update)',
    method: 'PATCH',
    path: `${SCHEMA}/resources/folder/roles/viewer`,
    body: (v) => ({ attributes: v }),
    loc: ['attributes'],
  },
  {
    name: 'instance attributes',
    method: 'POST',
    path: `${FACTS}/resource_instances`,
    body: (v) => ({ key: 'i', resource: 'folder', tenant: 'acme', attributes: v }),
    loc: ['attributes'],
  },
  {
    name: 'instance attributes (bulk)',
    method: 'PUT',
    path: `${FACTS}/bulk/resource_instances`,
    body: (v) => ({ operations: [{ key: 'i', resource: 'folder', tenant: 'acme', attributes: v }] }),
    loc: ['operations', 0, 'attributes'],
  },
  {
    name: 'check context',
    method: 'POST',
    path: '/allowed',
    body: (v) => ({ user: 'u', action: 'read', resource: 'folder:f', context: v }),
    loc: ['context'],
  },
  {
    name: "check user's attributes",
    method: 'POST',
    path: '/allowed',
    body: (v) => ({ user: { key: 'u', attributes: v }, action: 'read', resource: 'folder:f' }),
    loc: ['user', 'attributes'],
  },
  {
    name: "check resource's attributes",
    method: 'POST',
    path: '/allowed',
    body: (v) => ({ user: 'u', action: 'read', resource: { type: 'folder', key: 'f', attributes: v } }),
    loc: ['resource', 'attributes'],
  },
  {
    name: 'bulk check context',
    method: 'POST',
    path: '/allowed/bulk',
    body: (v) => [{ user: 'u', action: 'read', resource: 'folder:f', context: v }],
    loc: [0, 'context'],
  },
  {
    name: 'user-permissions context',
    method: 'POST',
    path: '/user-permissions',
    body: (v) => ({ user: 'u', context: v }),
    loc: ['context'],
  },
  {
    name: 'authorized_users context',
    method: 'POST',
    path: '/authorized_users',
    body: (v) => ({ action: 'read', resource: 'folder:f', context: v }),
    loc: ['context'],
  },
  {
    name: 'project settings',
    method: 'POST',
    path: '/v2/projects',
    body: (v) => ({ key: 'p', name: 'P', settings: v }),
    loc: ['settings'],
  },
];

describe('free-form JSON is bounded', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ env: { READ_YOUR_WRITES_TIMEOUT_MS: '2000' } });
    api = await server.api.environmentClient();
    for (const [path, body] of [
      [`${SCHEMA}/resources`, { key: 'folder', name: 'Folder', actions: { read: {} } }],
      [`${SCHEMA}/resources/folder/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] }],
      [`${FACTS}/tenants`, { key: 'acme', name: 'Acme' }],
    ] as const) {
      expect((await api.post(path, body)).status).toBe(200);
    }
  });
  afterAll(() => server.close());

  /** Every refused request must leave the log as it was. */
  async function refused(field: Field, send: () => Promise<ApiResponse>, msg: RegExp): Promise<void> {
    const before = await server.service.eventStore.headPosition();
    const response = await send();
    expect({ field: field.name, status: response.status }).toEqual({ field: field.name, status: 422 });
    expect(response.body.detail).toEqual([{ loc: ['body', ...field.loc], msg: expect.stringMatching(msg), type: 'too_big' }]);
    expect(await server.service.eventStore.headPosition()).toBe(before);
  }
  /** The org-level field takes the admin key. */
  const client = (field: Field) => (field.path.startsWith('/v2/projects') ? server.api : api);

  it.each(fields.map((f) => [f.name, f] as const))(`%s: nested deeper than ${MAX_JSON_DEPTH} is a 422 naming it`, async (_, field) => {
    await refused(
      field,
      () => client(field).request(field.method, field.path, field.body(nested(MAX_JSON_DEPTH + 1))),
      /nested at most 32/,
    );
  });

  it.each(fields.map((f) => [f.name, f] as const))(`%s: nested 100,000 deep is a 422 naming it, not a 500`, async (_, field) => {
    const marker = '"__deep__"';
    const text = JSON.stringify(field.body('__deep__')).replace(marker, nestedText(100_000));
    await refused(field, () => client(field).request(field.method, field.path, text), /nested at most 32/);
  });

  it.each(fields.map((f) => [f.name, f] as const))(`%s: over ${MAX_JSON_FIELD_BYTES} bytes is a 422 naming it`, async (_, field) => {
    await refused(
      field,
      () => client(field).request(field.method, field.path, field.body(ofSize(MAX_JSON_FIELD_BYTES + 1))),
      /at most 65536 bytes/,
    );
  });

  it('takes attributes at the bounds, and stores them as sent', async () => {
    const deepest = nested(MAX_JSON_DEPTH - 1); // within an object: MAX_JSON_DEPTH levels in all
    const created = await api.post(`${FACTS}/tenants`, { key: 'deepest', name: 'Deepest', attributes: { d: deepest } });
    expect(created.status).toBe(200);
    expect(created.body.attributes).toEqual({ d: deepest });
    const largest = ofSize(MAX_JSON_FIELD_BYTES);
    const large = await api.post(`${FACTS}/users`, { key: 'largest', attributes: largest });
    expect(large.status).toBe(200);
    expect((await api.get(`${FACTS}/users/largest`)).body.attributes).toEqual(largest);
    // Multi-byte characters count as the bytes they take.
    const accents = await api.post(`${FACTS}/users`, { key: 'accents', attributes: { x: 'é'.repeat(MAX_JSON_FIELD_BYTES / 2) } });
    expect(accents.status).toBe(422);
    const check = await api.post('/allowed', { user: { key: 'u', attributes: { d: deepest } }, action: 'read', resource: 'folder:f' });
    expect(check.status).toBe(200);
  });

  it('a body nested 100,000 deep anywhere else is answered without a 500, and the service keeps serving', async () => {
    const deep = nestedText(100_000);
    const brackets = '['.repeat(100_000) + ']'.repeat(100_000);
    const sent = await Promise.all([
      api.request('POST', `${FACTS}/tenants`, deep),
      api.request('POST', `${FACTS}/tenants`, brackets),
      api.request('POST', `${FACTS}/tenants`, `{"key":"extra","name":"Extra","unknown":${deep}}`),
      api.request('POST', `${SCHEMA}/resources/folder/roles`, `{"key":"w","name":"W","granted_to":{"users_with_role":[],"when":${deep}}}`),
      api.request('POST', '/allowed', brackets),
      api.request('POST', '/allowed', `{"user":{"key":"u","firstName":${deep}},"action":"read","resource":"folder:f"}`),
      api.request('POST', '/allowed/bulk', brackets),
      api.request('POST', `${FACTS}/relationship_tuples`, `{"subject":${deep},"relation":"parent","object":"folder:f"}`),
      api.request('DELETE', `${FACTS}/tenants/ghost`, deep),
      server.api.request('POST', '/v2/projects/default/envs', `{"key":"e","name":"E","jwks":${deep}}`),
    ]);
    expect(sent.map((r) => r.status)).toEqual([422, 422, 422, 422, 422, 200, 422, 422, 404, 422]);
    // A field the route does not take is refused by name, however deep its value, and nothing is created.
    expect(sent[2].body.detail).toEqual([{ loc: ['body', 'unknown'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
    expect((await api.get(`${FACTS}/tenants/extra`)).status).toBe(404);
    expect((await api.get(`${FACTS}/tenants/acme`)).status).toBe(200);
  });
});
