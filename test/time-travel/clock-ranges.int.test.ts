import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import { clockId, HistoryCollections } from '../../shared/read-models/history/history';

/**
 * The clock is read by ranges of its ids (`<environment> <at>`): one environment's entries, in
 * time order, never another's, even one whose id starts with the first's.
 */
describe('the history clock read by ranges of ids', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let history: HistoryCollections;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rebac-clock-'));
    store = new SqliteDocumentStore(join(dir, 'read-models.sqlite'));
    history = new HistoryCollections(store.writerView());
    const entries: Array<[string, string, number]> = [
      ['e1', '2026-01-01T00:00:01.000Z', 1],
      ['e1', '2026-01-01T00:00:03.000Z', 4],
      ['e10', '2026-01-01T00:00:02.000Z', 2],
      ['e10', '2026-01-01T00:00:05.000Z', 7],
      ['e', '2026-01-01T00:00:04.000Z', 9],
    ];
    await history.clock.putMany(entries.map(([env, at, first]) => ({ id: clockId(env, at), environment_id: env, at, first })));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a time from the environment's own entries", async () => {
    expect(await history.positionAtTime('e1', '2026-01-01T00:00:00.000Z')).toBe(0);
    expect(await history.positionAtTime('e1', '2026-01-01T00:00:01.000Z')).toBe(3);
    expect(await history.positionAtTime('e1', '2026-01-01T00:00:02.500Z')).toBe(3);
    // Later than e1's last entry: e10's later entry is not e1's.
    expect(await history.positionAtTime('e1', '2026-01-01T00:00:03.000Z')).toBeNull();
    expect(await history.positionAtTime('e10', '2026-01-01T00:00:01.000Z')).toBe(1);
    expect(await history.positionAtTime('e10', '2026-01-01T00:00:02.000Z')).toBe(6);
    expect(await history.positionAtTime('e', '2026-01-01T00:00:00.000Z')).toBe(8);
    expect(await history.positionAtTime('e', '2026-01-01T00:00:04.000Z')).toBeNull();
  });

  it('reads the entries back whole', async () => {
    expect(await history.clock.get(clockId('e10', '2026-01-01T00:00:05.000Z'))).toEqual({
      id: 'e10 2026-01-01T00:00:05.000Z',
      environment_id: 'e10',
      at: '2026-01-01T00:00:05.000Z',
      first: 7,
    });
  });
});
