/**
 * The distributed deployment's capacity on paper: how many checks and writes per second N
 * command-service replicas would answer, each on a machine of its own, from the CPU each request
 * and each event was measured to cost (bench/scenarios/distributed.ts), and where a part every
 * replica shares (PostgreSQL's appends, the one active projection runner, the read-model store)
 * stops the line. bench/distributed-capacity.ts prints it from a results file.
 */

/** CPU per request or per event, in µs, measured in one run (every thread of the process unless "Main"). */
export interface DistributedCosts {
  commandPerCheckUs: number;
  commandMainPerCheckUs: number;
  commandPerUncachedCheckUs: number;
  commandMainPerUncachedCheckUs: number;
  /** The read-model store's (FerretDB's) CPU per uncached check (0 with read models on SQLite, as above). */
  readModelStorePerUncachedCheckUs: number;
  /**
   * The read-model store's CPU per cached check: a request the decision cache answers still reads
   * the store. Absent from results files written before the bench measured it (counted as none).
   */
  readModelStorePerCachedCheckUs?: number;
  commandPerCreateUs: number;
  commandMainPerCreateUs: number;
  /** PostgreSQL's CPU per single create: its append, and the reads of the log that follow it (the projection runner's, the relay's). */
  postgresPerAppendUs: number;
  projectionPerEventUs: number;
  projectionMainPerEventUs: number;
  /** The read-model store's CPU per event projected (0 with read models on SQLite: in the processes' own CPU). */
  readModelStorePerEventUs: number;
  /** What the run itself measured on one machine, for reference beside the paper figures. */
  measured: { cachedChecksPerS: number; uncachedChecksPerS: number; createsPerS: number };
}

export interface Limit {
  perS: number;
  /** What stops it there. */
  bound: string;
}

export interface CapacityRow {
  replicas: number;
  cachedChecks: Limit;
  uncachedChecks: Limit;
  writes: Limit;
}

/**
 * What one Node process does per second on a machine of `cores` cores: its threads together get
 * every core, its main thread (the event loop) one of them at most.
 */
export function processCeiling(totalUs: number, mainUs: number, cores: number): Limit {
  const byCores = (cores * 1e6) / totalUs;
  const byMainThread = 1e6 / mainUs;
  return byMainThread < byCores ? { perS: byMainThread, bound: 'main thread' } : { perS: byCores, bound: `${cores} cores` };
}

/** The lowest of the limits (the first to stop the line). */
const lowest = (...limits: Limit[]): Limit => limits.reduce((a, b) => (b.perS < a.perS ? b : a));

/**
 * `postgresAppendsPerS`: a ceiling of PostgreSQL's appends measured apart (bench/postgres-append-order.ts):
 * appends serialise on a lock held through each commit's flush, a limit that is not CPU.
 */
export function capacityTable(costs: DistributedCosts, replicas: number[], cores = 2, postgresAppendsPerS?: number): CapacityRow[] {
  const replica = (totalUs: number, mainUs: number, n: number): Limit => {
    const one = processCeiling(totalUs, mainUs, cores);
    return { perS: n * one.perS, bound: `${n} command replica${n === 1 ? '' : 's'} (${one.bound})` };
  };
  // A store whose work is in the processes' own CPU (SQLite read models) limits nothing of its own.
  const readModelsForChecks: Limit = {
    perS: (cores * 1e6) / costs.readModelStorePerUncachedCheckUs,
    bound: `read-model store (${cores} cores)`,
  };
  const readModelsForCachedChecks: Limit = {
    perS: (cores * 1e6) / (costs.readModelStorePerCachedCheckUs ?? 0),
    bound: `read-model store (${cores} cores)`,
  };
  const postgresCpu: Limit = { perS: (cores * 1e6) / costs.postgresPerAppendUs, bound: `PostgreSQL (${cores} cores)` };
  const postgres =
    postgresAppendsPerS === undefined ? postgresCpu : lowest(postgresCpu, { perS: postgresAppendsPerS, bound: "PostgreSQL's append lock" });
  const runnerCeiling = processCeiling(costs.projectionPerEventUs, costs.projectionMainPerEventUs, cores);
  const runner: Limit = { perS: runnerCeiling.perS, bound: `projection runner (${runnerCeiling.bound})` };
  const readModelsForWrites: Limit = { perS: (cores * 1e6) / costs.readModelStorePerEventUs, bound: `read-model store (${cores} cores)` };
  return replicas.map((n) => ({
    replicas: n,
    cachedChecks: lowest(replica(costs.commandPerCheckUs, costs.commandMainPerCheckUs, n), readModelsForCachedChecks),
    uncachedChecks: lowest(replica(costs.commandPerUncachedCheckUs, costs.commandMainPerUncachedCheckUs, n), readModelsForChecks),
    writes: lowest(replica(costs.commandPerCreateUs, costs.commandMainPerCreateUs, n), postgres, runner, readModelsForWrites),
  }));
}
