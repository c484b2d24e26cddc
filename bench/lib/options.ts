import type { DatasetSize } from './dataset';

export const SCENARIOS = [
  'check',
  'bulk-check',
  'creates',
  'bulk-import',
  'fanout',
  'copy',
  'memory',
  'cold-start',
  'audit-log',
  'peer',
  'soak',
  'time-travel',
  'abac',
  'expiry',
  'rebuild',
  'tracing',
  'decision-log',
  'distributed',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
/** The peers of the `peer` scenario (each run as it ships and with its caches warm). */
export const PEERS = ['spicedb-memory', 'spicedb-postgres', 'openfga-postgres'] as const;
export type PeerName = (typeof PEERS)[number];
/** Where the distributed scenario's deployments keep their read models (`mongodb`: FerretDB). */
export const DIST_READ_MODELS = ['mongodb', 'postgres', 'sqlite'] as const;
export type DistReadModels = (typeof DIST_READ_MODELS)[number];
/**
 * Scenarios that run only when named with --only: the soak takes ten minutes on its own; the
 * distributed one needs Kafka, FerretDB and PostgreSQL installed (scripts/test-servers.sh install).
 */
const OPT_IN: readonly ScenarioName[] = ['soak', 'distributed'];

export interface BenchOptions {
  mode: 'quick' | 'full';
  /** The checked data set (also loaded into OpenFGA). */
  dataset: DatasetSize;
  /** Seconds per measured load, repetitions, and unrecorded warm-up seconds before each. */
  durationS: number;
  repeat: number;
  warmupS: number;
  connections: number;
  /** Documents under the one folder of the fan-out scenario. */
  fanoutFiles: number;
  /** Events in the copied environment (the copy rows and the distributed scenario's). */
  copyEvents: number;
  /** Tuples in the store for the memory and cold-start scenarios. */
  memoryTuples: number;
  /** Events in the environment of the time-travel rows (as_of checks, decision history). */
  timeTravelEvents: number;
  /** Events in the log every read model is rebuilt from. */
  rebuildEvents: number;
  /**
   * The distributed scenario's scale: its data set (folders; nine documents and one user per folder)
   * and the events of its copied environment. Smaller than the other rows': FerretDB, its read-model
   * server, writes a few hundred documents a second (docs/benchmarks.md, "Distributed mode").
   */
  distributedFolders: number;
  distributedCopyEvents: number;
  /** The distributed deployments to start, by their read models (default all three, in this order). */
  distributedReadModels: DistReadModels[];
  /** Items per bulk request when loading. */
  bulkChunk: number;
  /** Seconds of mixed load in the soak scenario. */
  soakDurationS: number;
  only: Set<ScenarioName>;
  /** The peers to run beside ours (default all). */
  peers: PeerName[];
  /** NODE_OPTIONS for our server processes (e.g. `--max-old-space-size=768`), for experiments. */
  serverNodeOptions: string | null;
  /** Write CPU profiles of the server processes here (`--cpu-prof`). */
  profileDir: string | null;
  /** Where the JSON goes (default bench/results/<timestamp>.json). */
  out: string | null;
}

/** The full-scale data set: what the bulk-load and check rows load (and the in-process replays of the bulk load's log). */
export const FULL_DATASET = { folders: 10_000, documents: 90_000, users: 10_000 };

const FULL: Omit<BenchOptions, 'only' | 'profileDir' | 'out' | 'peers' | 'serverNodeOptions' | 'distributedReadModels'> = {
  mode: 'full',
  dataset: FULL_DATASET,
  durationS: 10,
  repeat: 3,
  warmupS: 2,
  connections: 64,
  fanoutFiles: 100_000,
  copyEvents: 1_000_000,
  memoryTuples: 1_000_000,
  timeTravelEvents: 1_000_000,
  rebuildEvents: 1_000_000,
  distributedFolders: 200,
  distributedCopyEvents: 20_000,
  bulkChunk: 5_000,
  soakDurationS: 600,
};

/** Finishes in under two minutes: smaller data, one short run per load. */
const QUICK: typeof FULL = {
  mode: 'quick',
  dataset: { folders: 1_000, documents: 9_000, users: 1_000 },
  durationS: 3,
  repeat: 1,
  warmupS: 1,
  connections: 64,
  fanoutFiles: 10_000,
  copyEvents: 50_000,
  memoryTuples: 50_000,
  timeTravelEvents: 100_000,
  rebuildEvents: 100_000,
  distributedFolders: 50,
  distributedCopyEvents: 2_000,
  bulkChunk: 5_000,
  soakDurationS: 60,
};

const USAGE = `usage: npm run bench -- [--quick] [--only=a,b] [--skip=a,b] [--repeat=N] [--duration=S] [--copy-events=N] [--dist-folders=N] [--dist-copy-events=N] [--dist-read-models=a,b] [--peers=a,b] [--soak-duration=S] [--server-node-options='--max-old-space-size=768'] [--profile[=dir]] [--out=file.json]
scenarios: ${SCENARIOS.join(', ')} (${OPT_IN.join(', ')} only with --only)
peers: ${PEERS.join(', ')} (default all)
dist-read-models: ${DIST_READ_MODELS.join(', ')} (default all; mongodb is FerretDB)`;

const FLAGS = new Set([
  'help',
  'quick',
  'only',
  'skip',
  'duration',
  'repeat',
  'copy-events',
  'dist-folders',
  'dist-copy-events',
  'dist-read-models',
  'peers',
  'soak-duration',
  'server-node-options',
  'profile',
  'out',
  'peer-datastore',
]);

export function parseOptions(argv: string[]): BenchOptions {
  const flags = new Map<string, string | true>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match || !FLAGS.has(match[1]!)) throw new Error(`unknown argument ${arg}\n${USAGE}`);
    flags.set(match[1]!, match[2] ?? true);
  }
  if (flags.has('help')) {
    console.log(USAGE);
    process.exit(0);
  }
  const base = flags.has('quick') ? QUICK : FULL;
  const list = (name: string): ScenarioName[] => {
    const value = flags.get(name);
    if (typeof value !== 'string') return [];
    const names = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const n of names) if (!(SCENARIOS as readonly string[]).includes(n)) throw new Error(`unknown scenario ${n}\n${USAGE}`);
    return names as ScenarioName[];
  };
  const only = list('only');
  const skip = new Set(list('skip'));
  const number = (name: string, fallback: number) => {
    const value = flags.get(name);
    return typeof value === 'string' ? Number(value) : fallback;
  };
  const profile = flags.get('profile');
  if (flags.has('peer-datastore')) throw new Error(`--peer-datastore is gone: the peers are chosen with --peers\n${USAGE}`);
  const peersFlag = flags.get('peers');
  const peers = typeof peersFlag === 'string' ? peersFlag.split(',').map((s) => s.trim()) : [...PEERS];
  for (const p of peers) if (!(PEERS as readonly string[]).includes(p)) throw new Error(`unknown peer ${p}\n${USAGE}`);
  const readModelsFlag = flags.get('dist-read-models');
  const readModels = typeof readModelsFlag === 'string' ? readModelsFlag.split(',').map((s) => s.trim()) : [...DIST_READ_MODELS];
  for (const r of readModels)
    if (!(DIST_READ_MODELS as readonly string[]).includes(r)) throw new Error(`unknown read models ${r}\n${USAGE}`);
  return {
    ...base,
    durationS: number('duration', base.durationS),
    repeat: number('repeat', base.repeat),
    copyEvents: number('copy-events', base.copyEvents),
    distributedFolders: number('dist-folders', base.distributedFolders),
    distributedCopyEvents: number('dist-copy-events', base.distributedCopyEvents),
    distributedReadModels: DIST_READ_MODELS.filter((r) => readModels.includes(r)),
    soakDurationS: number('soak-duration', base.soakDurationS),
    only: new Set((only.length > 0 ? only : SCENARIOS.filter((s) => !OPT_IN.includes(s))).filter((s) => !skip.has(s))),
    serverNodeOptions: typeof flags.get('server-node-options') === 'string' ? (flags.get('server-node-options') as string) : null,
    peers: peers as PeerName[],
    profileDir: profile === undefined ? null : profile === true ? 'bench/results/profiles' : profile,
    out: typeof flags.get('out') === 'string' ? (flags.get('out') as string) : null,
  };
}
