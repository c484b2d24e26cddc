/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `npm run bench -- --profile`):
 * the functions with the most self time, and the most inclusive time (self +
 * callees, each function counted once per stack), with file:line.
 *
 *   node -r @swc-node/register bench/profile-summary.ts FILE.cpuprofile [--top=25] [--inclusive] [--phase=check | --window=FROM:TO]
 *
 * --phase cuts the profile to one load of the run (from phases.json, which
 * `npm run bench -- --profile` writes beside the profile); --window to seconds
 * since the process started.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './lib/child';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface FunctionTime {
  name: string;
  selfMs: number;
  totalMs: number;
}

const label = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  const where = url
    ? `${url.startsWith(ROOT) ? relative(ROOT, url) : url.replace(/.*node_modules\//, 'node_modules/')}:${n.callFrame.lineNumber + 1}`
    : '';
  return `${n.callFrame.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
};

/** Samples between `fromS` and `toS` seconds after the profile started. */
export function summarise(
  profile: CpuProfile,
  window: { fromS: number; toS: number } = { fromS: 0, toS: Infinity },
): { totalMs: number; idleMs: number; functions: FunctionTime[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sampleMs = new Map<number, number>();
  let atUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    atUs += delta;
    if (atUs / 1e6 < window.fromS || atUs / 1e6 > window.toS) return;
    sampleMs.set(id, (sampleMs.get(id) ?? 0) + delta / 1000);
  });
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let idleMs = 0;
  let totalMs = 0;
  for (const [id, ms] of sampleMs) {
    const node = byId.get(id)!;
    totalMs += ms;
    if (node.callFrame.functionName === '(idle)') idleMs += ms;
    self.set(label(node), (self.get(label(node)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + ms);
    }
  }
  const functions = [...total.keys()].map((name) => ({ name, selfMs: self.get(name) ?? 0, totalMs: total.get(name) ?? 0 }));
  return { totalMs, idleMs, functions };
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) {
    console.error('usage: bench/profile-summary.ts FILE.cpuprofile [--top=25] [--inclusive]');
    process.exit(2);
  }
  const top = Number(args.find((a) => a.startsWith('--top='))?.split('=')[1] ?? 25);
  const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  let window = { fromS: 0, toS: Infinity };
  const phase = value('phase');
  const range = value('window');
  if (phase) {
    const phasesFile = join(dirname(file), 'phases.json');
    if (!existsSync(phasesFile)) throw new Error(`no ${phasesFile}: --phase needs a profile written by npm run bench -- --profile`);
    const found = (JSON.parse(readFileSync(phasesFile, 'utf8')) as Array<{ label: string; fromS: number; toS: number }>).find(
      (p) => p.label === phase,
    );
    if (!found) throw new Error(`no phase ${phase} in ${phasesFile}`);
    window = found;
  } else if (range) {
    const [from, to] = range.split(':').map(Number);
    window = { fromS: from ?? 0, toS: to ?? Infinity };
  }
  if (phase || range)
    console.log(
      `window ${window.fromS.toFixed(1)}–${window.toS.toFixed(1)} s after the process started${phase ? ` (phase ${phase})` : ''}`,
    );
  const { totalMs, idleMs, functions } = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, window);
  const busy = totalMs - idleMs;
  const pct = (ms: number) => `${((100 * ms) / busy).toFixed(1).padStart(5)}%`;
  console.log(
    `${file}: ${(totalMs / 1000).toFixed(1)} s sampled, ${(idleMs / 1000).toFixed(1)} s idle, ${(busy / 1000).toFixed(1)} s busy (percentages of busy time)`,
  );
  const inclusive = args.includes('--inclusive');
  const sorted = [...functions]
    .filter((f) => !/^\((idle|root|program)\)/.test(f.name))
    .sort((a, b) => (inclusive ? b.totalMs - a.totalMs : b.selfMs - a.selfMs));
  console.log(inclusive ? '   total    self  function' : '    self   total  function');
  for (const f of sorted.slice(0, top)) {
    console.log(inclusive ? `${pct(f.totalMs)} ${pct(f.selfMs)}  ${f.name}` : `${pct(f.selfMs)} ${pct(f.totalMs)}  ${f.name}`);
  }
}

if (require.main === module) main();
