import { FACTS, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** `{"a":{"a":…1…}}` nested `depth` levels, built as text (serialising it would overflow the stack). */
const isBadIndex = (i: number) => i % 10 === 3;

export const nestedJson = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('one client cannot fail another', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
  });
  afterAll(() => server.close());

  it('100 concurrent tenant creates, 10 of them with attributes nested 5,000 deep: the 90 are stored, the 10 refused alone', async () => {
    const before = await server.service.eventStore.headPosition();
    const deep = nestedJson(5000);
    const requests = Array.from({ length: 100 }, (_, i) =>
      isBadIndex(i)
        ? api.request('POST', `${FACTS}/tenants`, `{"key":"bad-${i}","name":"Bad","attributes":${deep}}`)
        : api.post(`${FACTS}/tenants`, { key: `good-${i}`, name: `Good ${i}`, attributes: { n: i } }),
    );
    const responses = await Promise.all(requests);
    const klass = (status: number) => (status >= 400 && status < 500 ? '4xx' : status);
    expect(responses.map((r, i) => (isBadIndex(i) ? klass(r.status) : r.status))).toEqual(
      responses.map((_, i) => (isBadIndex(i) ? '4xx' : 200)),
    );
    responses.forEach((response, i) => {
      const body = response.body as Record<string, unknown>;
      if (!isBadIndex(i)) expect(body).toMatchObject({ key: `good-${i}`, attributes: { n: i } });
      // The error shape: Permit's 422 detail, or the error object.
      else if (response.status === 422) expect(body.detail).toEqual(expect.any(Array));
      else expect(body).toMatchObject({ id: expect.any(String), error_code: expect.any(String), message: expect.any(String) });
    });

    const listed = await api.get(`${FACTS}/tenants?per_page=100`);
    const keys = (listed.body as Array<{ key: string }>).map((t) => t.key);
    expect(keys.filter((k) => k.startsWith('good-')).sort()).toEqual(
      Array.from({ length: 100 }, (_, i) => i)
        .filter((i) => !isBadIndex(i))
        .map((i) => `good-${i}`)
        .sort(),
    );
    expect(keys.filter((k) => k.startsWith('bad-'))).toEqual([]);
    const stored = await server.service.eventStore.readAll(before, 10_000);
    expect(stored.filter((e) => e.type === 'TenantCreated')).toHaveLength(90);
    expect(stored.some((e) => String((e.data as { key?: string }).key).startsWith('bad-'))).toBe(false);
  });
});
