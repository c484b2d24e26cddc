/**
 * The distributed deployment's checks and writes per second for 1, 2, 4 and 8 command-service
 * replicas on machines of 2 cores, on paper, from the CPU costs a run of
 * `npm run bench -- --only=distributed` measured (its `dist-costs` row), and what stops each figure
 * (bench/lib/capacity.ts says how).
 *
 *   node -r @swc-node/register bench/distributed-capacity.ts [RESULTS.json] [--cores=2] [--replicas=1,2,4,8] [--postgres-appends=N]
 *
 * Without a file: the newest file in bench/results that has the row. `--postgres-appends`: a ceiling of
 * PostgreSQL's appends per second measured with bench/postgres-append-order.ts (its lock, not its CPU).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { capacityTable, type DistributedCosts, type Limit } from './lib/capacity';
import { RESULTS_DIR, type BenchResults } from './lib/results';

const COSTS_ROW = 'dist-costs';

/**
 * The costs measured with read models on FerretDB, on SQLite and (runs since it was added) on
 * PostgreSQL, the log on PostgreSQL in each.
 */
interface Costs {
  ferretdb: DistributedCosts;
  postgres?: DistributedCosts;
  sqlite: DistributedCosts;
}

function costsOf(path: string): { results: BenchResults; costs: Costs } | null {
  const results = JSON.parse(readFileSync(path, 'utf8')) as BenchResults;
  const row = results.scenarios.find((s) => s.id === COSTS_ROW && !s.error);
  return row ? { results, costs: row.details!.costs as Costs } : null;
}

function newestWithCosts(): string {
  const files = readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .reverse();
  const found = files.find((f) => costsOf(join(RESULTS_DIR, f)) !== null);
  if (!found) throw new Error(`no results file in ${RESULTS_DIR} has a ${COSTS_ROW} row: run npm run bench -- --only=distributed`);
  return join(RESULTS_DIR, found);
}

const us = (n: number) => `${Math.round(n).toLocaleString('en-US')} µs`;
const rate = (l: Limit) => `${Math.round(l.perS).toLocaleString('en-US')}/s (${l.bound})`;

function main(): void {
  const args = process.argv.slice(2);
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const cores = Number(flag('cores') ?? 2);
  const replicas = (flag('replicas') ?? '1,2,4,8').split(',').map(Number);
  const appendsFlag = flag('postgres-appends');
  const postgresAppends = appendsFlag === undefined ? undefined : Number(appendsFlag);
  const path = args.find((a) => !a.startsWith('--')) ?? newestWithCosts();
  const found = costsOf(path);
  if (!found) throw new Error(`${path} has no ${COSTS_ROW} row`);
  const { results, costs } = found;
  console.log(
    `costs measured by ${path} (${results.startedAt}, commit ${results.commit}, load average ${results.machine.loadAvgAtStart.join(' ')})`,
  );
  const machines = `each command-service replica, PostgreSQL, the projection runner and the read-model server on a ${cores}-core machine of its own`;
  if (postgresAppends !== undefined)
    console.log(`PostgreSQL's appends no more than ${postgresAppends}/s whatever its CPU (--postgres-appends)`);
  // The deployment of two kinds of server, when the run measured it, first: the one to size by.
  if (costs.postgres)
    table(
      `read models on PostgreSQL (as measured; the log's server is the read-model server: its CPU per write has the append and the projected event together; ${machines})`,
      costs.postgres,
      replicas,
      cores,
      results.machine.cpus,
      postgresAppends,
    );
  table(`read models on FerretDB (as measured; ${machines})`, costs.ferretdb, replicas, cores, results.machine.cpus, postgresAppends);
  table(
    `read models on SQLite (the store's work inside the runner's and the replicas' CPU: a read-model store that keeps up; ${machines})`,
    costs.sqlite,
    replicas,
    cores,
    results.machine.cpus,
    postgresAppends,
  );
}

function table(title: string, c: DistributedCosts, replicas: number[], cores: number, hostCores: number, postgresAppends?: number): void {
  console.log('');
  console.log(`${title}:`);
  console.log(
    `  per check: command service ${us(c.commandPerCheckUs)} cached (main thread ${us(c.commandMainPerCheckUs)}), ${us(c.commandPerUncachedCheckUs)} uncached (main thread ${us(c.commandMainPerUncachedCheckUs)}), read-model server ${us(c.readModelStorePerUncachedCheckUs)} uncached, ${c.readModelStorePerCachedCheckUs === undefined ? 'not measured' : us(c.readModelStorePerCachedCheckUs)} cached`,
  );
  console.log(
    `  per write: command service ${us(c.commandPerCreateUs)} (main thread ${us(c.commandMainPerCreateUs)}), PostgreSQL ${us(c.postgresPerAppendUs)}, projection runner ${us(c.projectionPerEventUs)} per event (main thread ${us(c.projectionMainPerEventUs)}), read-model server ${us(c.readModelStorePerEventUs)} per event`,
  );
  console.log(
    `  measured with everything on one machine of ${hostCores} cores: ${Math.round(c.measured.cachedChecksPerS)} cached checks/s, ${Math.round(c.measured.uncachedChecksPerS)} uncached, ${Math.round(c.measured.createsPerS)} creates/s`,
  );
  console.log('');
  console.log('| replicas | checks/s, cached | checks/s, uncached | writes/s |');
  console.log('|---|---|---|---|');
  for (const row of capacityTable(c, replicas, cores, postgresAppends))
    console.log(`| ${row.replicas} | ${rate(row.cachedChecks)} | ${rate(row.uncachedChecks)} | ${rate(row.writes)} |`);
}

main();
