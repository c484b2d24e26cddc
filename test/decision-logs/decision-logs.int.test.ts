import { startTestServer, type TestServer } from '../support/embedded-server';
import { decisionLogSuite, environment } from './support/decision-log-suite';

/** The decision log on the embedded engines (SQLite); mongo.e2e.test.ts runs the same suite on MongoDB. */
decisionLogSuite('decision logs', () => startTestServer());

describe('decision logs: how many are kept', () => {
  /** Starts a server with the settings, sends `count` checks in one bulk request, and says how many were logged. */
  async function logged(env: Record<string, string>, count: number, after?: (server: TestServer) => Promise<void>) {
    const server = await startTestServer({ env });
    try {
      const { s, logs } = await environment(server, 'dl-count');
      const checks = Array.from({ length: count }, (_, i) => ({ user: `user-${i}`, action: 'read', resource: 'document:readme' }));
      await s.ok(s.api.post('/allowed/bulk', checks));
      await s.api.post('/allowed', { user: 'alice', action: 'read', resource: 'document:readme' });
      await after?.(server);
      return (await s.api.get(`${logs}?per_page=1`)).body.total_count as number;
    } finally {
      await server.close();
    }
  }

  it('keeps none with DECISION_LOG=off, none at rate 0, all at rate 1, about the rate’s share in between', async () => {
    expect(await logged({ DECISION_LOG: 'off' }, 50)).toBe(0);
    expect(await logged({ DECISION_LOG: 'sampled', DECISION_LOG_SAMPLE_RATE: '0' }, 50)).toBe(0);
    expect(await logged({ DECISION_LOG: 'sampled', DECISION_LOG_SAMPLE_RATE: '1' }, 50)).toBe(51);
    // 1,001 draws at 0.3: the mean is 300, its standard deviation 14.5; ±75 is beyond 5 of them.
    const some = await logged({ DECISION_LOG: 'sampled', DECISION_LOG_SAMPLE_RATE: '0.3' }, 1000);
    expect(some).toBeGreaterThan(225);
    expect(some).toBeLessThan(375);
  });

  it('keeps the newest DECISION_LOG_MAX_ENTRIES', async () => {
    expect(
      await logged({ DECISION_LOG_MAX_ENTRIES: '5' }, 9, (server) =>
        server.service.services.decisionLog.enforceRetention().then(() => undefined),
      ),
    ).toBe(5);
  });

  it('refuses a configuration out of bounds at start', async () => {
    await expect(startTestServer({ env: { DECISION_LOG_SAMPLE_RATE: '1.5' } })).rejects.toThrow(/DECISION_LOG_SAMPLE_RATE/);
    await expect(startTestServer({ env: { DECISION_LOG: 'some' } })).rejects.toThrow(/DECISION_LOG/);
  });
});
