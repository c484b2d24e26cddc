import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './child';

const run = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts', 'postgres.sh');

export interface Postgres {
  /** `postgres://postgres@127.0.0.1:PORT/` (no password: the cluster trusts loopback). */
  url: string;
  /** A database's connection string for the peers (Go's pgx reads `sslmode`). */
  database(name: string): string;
  /** Proportional set size of the whole cluster (postmaster and its backends), MiB: shared buffers counted once. */
  pssMiB(): number | null;
  /** The postmaster and its children (backends, background workers) now. */
  pids(): number[];
  stop(): Promise<void>;
}

/** `scripts/postgres.sh start`: a fresh cluster in the run dir, with the `spicedb` and `openfga` databases. */
export async function startPostgres(): Promise<Postgres> {
  const { stdout } = await run('bash', [SCRIPT, 'start'], { cwd: ROOT });
  const url = /POSTGRES_URL=(\S+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`postgres.sh start printed no POSTGRES_URL: ${stdout}`);
  const dataDir = join(process.env.SERVERS_RUN_DIR ?? '/tmp/rebac-test-servers', 'postgres', 'data');
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url,
    database: (name) => `${url}${name}?sslmode=disable`,
    pssMiB: () => clusterPssMiB(postmaster),
    pids: () => clusterPids(postmaster),
    stop: async () => {
      await run('bash', [SCRIPT, 'stop'], { cwd: ROOT });
    },
  };
}

function clusterPids(postmaster: number): number[] {
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) may hold spaces; the parent pid is the second field after it.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** The postmaster and its children, summed by PSS (RSS would count the shared buffers once per backend). */
function clusterPssMiB(postmaster: number): number | null {
  const pids = clusterPids(postmaster);
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      if (pid === postmaster) return null;
    }
  }
  return kb / 1024;
}
