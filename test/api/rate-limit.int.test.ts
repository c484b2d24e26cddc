import { FACTS, startTestServer, type TestServer } from '../support/embedded-server';

describe('per-key rate limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_KEY_RPS: '0.5', RATE_LIMIT_PER_KEY_BURST: '3' } });
  });
  afterAll(() => server.close());

  it('answers 429 in the error shape with Retry-After beyond the burst, per key', async () => {
    // A fresh key: the admin key's bucket was used by the setup.
    const env = await server.api.environmentClient();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await env.get(`${FACTS}/users`));
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
    const limited = answers[3]!;
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      id: expect.any(String),
      error_code: 'UNEXPECTED_ERROR',
      reason: 'TOO_MANY_REQUESTS',
      title: expect.any(String),
      message: expect.stringContaining('0.5 requests per second'),
      support_link: expect.any(String),
      additional_info: { limit_per_second: 0.5, burst: 3, retry_after_seconds: 2 },
    });
    expect(limited.headers.get('retry-after')).toBe('2');
    // Checks count too; another key has its own bucket.
    expect((await env.post('/allowed', { user: 'u', action: 'read', resource: { type: 'doc' } })).status).toBe(429);
    const other = await server.api.environmentClient();
    expect((await other.get(`${FACTS}/users`)).status).toBe(200);
  });

  it('is off by default', async () => {
    const unlimited = await startTestServer();
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, () => unlimited.api.get('/v2/api-key/scope')));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    } finally {
      await unlimited.close();
    }
  });
});
