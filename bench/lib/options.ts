import type { DatasetSize } from './dataset';

export const SCENARIOS = ['check', 'bulk-check', 'creates', 'bulk-import', 'fanout', 'copy', 'memory', 'cold-start', 'peer'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

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
  /** Events in the copied environment. */
  copyEvents: number;
  /** Tuples in the store for the memory and cold-start scenarios. */
  memoryTuples: number;
  /** Items per bulk request when loading. */
  bulkChunk: number;
  only: Set<ScenarioName>;
  /** Write CPU profiles of the server processes here (`--cpu-prof`). */
  profileDir: string | null;
  /** Where the JSON goes (default bench/results/<timestamp>.json). */
  out: string | null;
}

const FULL: Omit<BenchOptions, 'only' | 'profileDir' | 'out'> = {
  mode: 'full',
  dataset: { folders: 10_000, documents: 90_000, users: 10_000 },
  durationS: 10,
  repeat: 3,
  warmupS: 2,
  connections: 64,
  fanoutFiles: 100_000,
  copyEvents: 1_000_000,
  memoryTuples: 1_000_000,
  bulkChunk: 5_000,
};

/** Finishes in under two minutes: smaller data, one short run per load. */
const QUICK: typeof FULL = {
  mode: 'quick',
  dataset: { folders: 2_000, documents: 18_000, users: 2_000 },
  durationS: 4,
  repeat: 1,
  warmupS: 1,
  connections: 64,
  fanoutFiles: 10_000,
  copyEvents: 100_000,
  memoryTuples: 100_000,
  bulkChunk: 5_000,
};

const USAGE = `usage: npm run bench -- [--quick] [--only=a,b] [--skip=a,b] [--repeat=N] [--duration=S] [--profile[=dir]] [--out=file.json]
scenarios: ${SCENARIOS.join(', ')}`;

export function parseOptions(argv: string[]): BenchOptions {
  const flags = new Map<string, string | true>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument ${arg}\n${USAGE}`);
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
    const names = value.split(',').map((s) => s.trim()).filter(Boolean);
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
  return {
    ...base,
    durationS: number('duration', base.durationS),
    repeat: number('repeat', base.repeat),
    only: new Set((only.length > 0 ? only : [...SCENARIOS]).filter((s) => !skip.has(s))),
    profileDir: profile === undefined ? null : profile === true ? 'bench/results/profiles' : profile,
    out: typeof flags.get('out') === 'string' ? (flags.get('out') as string) : null,
  };
}
