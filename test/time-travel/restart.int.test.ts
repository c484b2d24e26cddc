import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FACTS, startTestServer, type ApiClient } from '../support/embedded-server';
import { timeTravelFeature } from '../../app/features/time-travel';
import { embeddedFeatures } from '../../app/features';

const pause = () => new Promise((r) => setTimeout(r, 15));
/** The tenants as of then, but the environment's `default` one, which it has had since its creation. */
const tenantsAsOf = async (api: ApiClient, asOf: string | number) =>
  ((await api.get(`${FACTS}/tenants?as_of=${encodeURIComponent(String(asOf))}`)).body as Array<{ key: string }>)
    .map((t) => t.key)
    .filter((key) => key !== 'default');

/** The history across restarts, and a history added to read models that were already further. */
describe('time travel across restarts', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rebac-tt-restart-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps answering by position and by time after a restart, and keeps the clock going', async () => {
    const first = await startTestServer({ dataDir });
    const api = await first.api.environmentClient();
    await api.post(`${FACTS}/tenants`, { key: 't1', name: 't1' });
    const afterT1 = first.service.runner.position;
    await pause();
    const timeAfterT1 = new Date().toISOString();
    await pause();
    await api.post(`${FACTS}/tenants`, { key: 't2', name: 't2' });
    await first.close({ keepData: true });

    const second = await startTestServer({ dataDir });
    try {
      const again = second.api.withKey(api.key);
      await pause();
      const timeBeforeT3 = new Date().toISOString();
      await pause();
      await again.post(`${FACTS}/tenants`, { key: 't3', name: 't3' });
      expect(await tenantsAsOf(again, afterT1)).toEqual(['t1']);
      expect(await tenantsAsOf(again, timeAfterT1)).toEqual(['t1']);
      expect(await tenantsAsOf(again, timeBeforeT3)).toEqual(['t1', 't2']);
      expect(await tenantsAsOf(again, new Date().toISOString())).toEqual(['t1', 't2', 't3']);
    } finally {
      await second.close({ keepData: true });
    }
  });

  it('added to read models written without it, rebuilds them from the log: every earlier position answers with what existed then', async () => {
    const features = embeddedFeatures().filter((f) => f.name !== 'time-travel');
    const first = await startTestServer({ dataDir, features });
    const api = await first.api.environmentClient();
    await api.post(`${FACTS}/tenants`, { key: 't1', name: 't1' });
    const before = first.service.runner.position;
    const refused = await api.get(`${FACTS}/tenants?as_of=${before}`);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].msg).toMatch(/does not keep/);
    await first.close({ keepData: true });

    // The history projection is new to these read models (shared/read-models/layout.ts): they are rebuilt, and it sees the whole log.
    const second = await startTestServer({ dataDir, features: [...features, timeTravelFeature()] });
    try {
      const again = second.api.withKey(api.key);
      await again.post(`${FACTS}/tenants`, { key: 't2', name: 't2' });
      expect(await tenantsAsOf(again, before - 1)).toEqual([]);
      expect(await tenantsAsOf(again, before)).toEqual(['t1']);
      expect(await tenantsAsOf(again, second.service.runner.position)).toEqual(['t1', 't2']);
    } finally {
      await second.close({ keepData: true });
    }
  });
});
