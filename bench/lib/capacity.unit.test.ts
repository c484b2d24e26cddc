import { capacityTable, processCeiling, type DistributedCosts } from './capacity';

const costs: DistributedCosts = {
  commandPerCheckUs: 100,
  commandMainPerCheckUs: 80,
  commandPerUncachedCheckUs: 400,
  commandMainPerUncachedCheckUs: 300,
  readModelStorePerUncachedCheckUs: 200,
  commandPerCreateUs: 1000,
  commandMainPerCreateUs: 600,
  postgresPerAppendUs: 250,
  projectionPerEventUs: 500,
  projectionMainPerEventUs: 400,
  readModelStorePerEventUs: 100,
  measured: { cachedChecksPerS: 0, uncachedChecksPerS: 0, createsPerS: 0 },
};

describe('the distributed capacity on paper', () => {
  it('gives a process every core for its threads and one core for its main thread', () => {
    expect(processCeiling(100, 80, 2)).toEqual({ perS: 12_500, bound: 'main thread' });
    expect(processCeiling(500, 100, 2)).toEqual({ perS: 4_000, bound: '2 cores' });
  });

  it('scales with the replicas until a shared part stops the line, and names it', () => {
    const table = capacityTable(costs, [1, 2, 4, 8]);
    expect(table.map((r) => Math.round(r.cachedChecks.perS))).toEqual([12_500, 25_000, 50_000, 100_000]);
    // Uncached: 3,333/s a replica (main thread) until the read-model store's 10,000/s.
    expect(table.map((r) => Math.round(r.uncachedChecks.perS))).toEqual([3_333, 6_667, 10_000, 10_000]);
    expect(table[2]!.uncachedChecks.bound).toBe('read-model store (2 cores)');
    // Writes: 1,667/s a replica until the projection runner's main thread (2,500/s), before PostgreSQL's 8,000/s.
    expect(table.map((r) => Math.round(r.writes.perS))).toEqual([1_667, 2_500, 2_500, 2_500]);
    expect(table[1]!.writes.bound).toBe('projection runner (main thread)');
    expect(table[0]!.writes.bound).toBe('1 command replica (main thread)');
  });

  it('lets the read-model store stop cached checks when each one reads it, and counts none when a run did not measure it', () => {
    const reading = capacityTable({ ...costs, readModelStorePerCachedCheckUs: 50 }, [1, 2, 4, 8]);
    // 12,500/s a replica (main thread) until the store's 40,000/s on two cores.
    expect(reading.map((r) => Math.round(r.cachedChecks.perS))).toEqual([12_500, 25_000, 40_000, 40_000]);
    expect(reading[3]!.cachedChecks.bound).toBe('read-model store (2 cores)');
    expect(reading[1]!.cachedChecks.bound).toBe('2 command replicas (main thread)');
  });

  it('lets PostgreSQL or the runner stop the line when the read-model store costs nothing of its own', () => {
    const onSqlite = {
      ...costs,
      readModelStorePerUncachedCheckUs: 0,
      readModelStorePerEventUs: 0,
      projectionPerEventUs: 200,
      projectionMainPerEventUs: 150,
    };
    const table = capacityTable(onSqlite, [1, 2, 4, 8]);
    // Uncached checks are the replicas' alone.
    expect(table.map((r) => Math.round(r.uncachedChecks.perS))).toEqual([3_333, 6_667, 13_333, 26_667]);
    // Writes: the runner's main thread now allows 6,667/s; PostgreSQL's 2 cores 8,000/s; 8 replicas would do 13,333/s.
    expect(table.map((r) => Math.round(r.writes.perS))).toEqual([1_667, 3_333, 6_667, 6_667]);
    expect(table[3]!.writes.bound).toBe('projection runner (main thread)');
    // A measured ceiling of PostgreSQL's appends below the runner's stops the line there instead.
    const locked = capacityTable(onSqlite, [1, 2, 4, 8], 2, 5_000);
    expect(locked.map((r) => Math.round(r.writes.perS))).toEqual([1_667, 3_333, 5_000, 5_000]);
    expect(locked[3]!.writes.bound).toBe("PostgreSQL's append lock");
  });
});
