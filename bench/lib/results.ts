import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './child';
import type { HostProbe } from './host-speed';

/** One row of the table: a scenario's main figure, its latency where it has one, and its target. */
export interface ScenarioResult {
  /** Stable key, used by bench/compare.ts to match rows across runs. */
  id: string;
  title: string;
  /** The main figure (throughput, time, memory). */
  value: number;
  unit: string;
  /** Which direction is an improvement (compare.ts flags the other as a regression). */
  better: 'higher' | 'lower';
  p50Ms?: number;
  p99Ms?: number;
  /** The bare-express baseline measured in the same run, and value / baseline. */
  baseline?: { value: number; unit: string; ratio: number };
  /** The main figure of every repetition, for the spread. */
  runs?: number[];
  /** met: null when the run was at a smaller scale than the target names (quick mode). */
  target?: { text: string; met: boolean | null };
  /** Scale and anything else needed to read the figure. */
  notes?: string;
  details?: Record<string, unknown>;
  /** Set when the scenario did not run (e.g. no openfga binary); nothing else is meaningful then. */
  skipped?: string;
  /** Set when the scenario failed; the run continues with the next one. */
  error?: string;
  /** The host's speed just before the scenario (bench/lib/host-speed.ts) and the share of its CPU the hypervisor took during it. */
  host?: HostProbe & { stealPercent: number | null };
}

export interface BenchResults {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  mode: 'quick' | 'full';
  commit: string | null;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; loadAvgAtStart: number[]; loadAvgAtEnd?: number[] };
  options: Record<string, unknown>;
  scenarios: ScenarioResult[];
}

export function machineInfo(): BenchResults['machine'] {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    loadAvgAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function gitCommit(): string | null {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return null;
  }
}

export const RESULTS_DIR = join(ROOT, 'bench', 'results');

/** Writes `bench/results/<timestamp>.json` (or `path`) and returns where. */
export function writeResults(results: BenchResults, path?: string): string {
  const file = path ?? join(RESULTS_DIR, `${results.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}
