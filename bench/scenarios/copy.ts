import type { BenchContext } from '../lib/context';
import { spawnNode } from '../lib/child';
import { npmStartEnv } from '../lib/service';
import type { ScenarioResult } from '../lib/results';

const number = (s: string) => Number(s.replace(/,/g, ''));

/**
 * Environment copy of an N-event environment with its facts: runs
 * bench/copy.ts (its own process, its own fresh service) and reads its
 * figures: the copy's rate from the task's start to its success, and until the
 * copy is visible in the read models. Two modes: `services` is the distributed
 * deployment, the command, task and projection services each in its own process
 * (the task service copies while the projection service projects what it
 * writes), `embedded` is the one-process default (`npm start`).
 */
export async function copyScenario(ctx: Pick<BenchContext, 'options' | 'log'>, mode: 'services' | 'embedded'): Promise<ScenarioResult> {
  const events = ctx.options.copyEvents;
  ctx.log(`copy: bench/copy.ts with ${events.toLocaleString('en-US')} events, ${mode} (its own process)`);
  const nodeArgs = ctx.options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${ctx.options.profileDir}/copy-${mode}`] : [];
  const child = spawnNode('bench/copy.ts', { ...npmStartEnv(), COPY_BENCH_EVENTS: String(events), COPY_BENCH_MODE: mode }, nodeArgs);
  const code = await new Promise<number | null>((resolve) => child.process.once('exit', (c) => resolve(c)));
  const output = child.output();
  const copy = /copy \(task start → success\):\s+([\d.]+) s, ([\d,]+) events\/s/.exec(output);
  const visible = /until visible[^:]*:\s+([\d.]+) s, ([\d,]+) events\/s/.exec(output);
  const peak = /peak RSS, copy \+ projecting it:\s+(\d+) MB/.exec(output);
  const cpu = /CPU, request → visible, every thread[^:]*: ([\d.]+) s, ([\d.]+) µs\/event; over (\d+) cores at least ([\d.]+) s/.exec(
    output,
  );
  if (code !== 0 || !copy) throw new Error(`bench/copy.ts exited ${code}; output:\n${output.slice(-3000)}`);
  const rate = number(copy[2]!);
  const untilVisibleS = Math.max(Number(copy[1]), visible ? Number(visible[1]) : 0);
  return {
    id: mode === 'services' ? 'copy' : 'copy-embedded',
    title:
      mode === 'services'
        ? `copy of a ${events.toLocaleString('en-US')}-event environment (task service)`
        : `copy of a ${events.toLocaleString('en-US')}-event environment, embedded`,
    value: rate,
    unit: 'events/s',
    better: 'higher',
    // Issue 17: `success` with everything visible within 30 s, in both modes.
    target: { text: '≤ 30 s to success, all visible (1M events)', met: events >= 1_000_000 ? untilVisibleS <= 30 : null },
    notes: `${copy[1]} s task start → success${visible ? `; ${number(visible[2]!).toLocaleString('en-US')} events/s until visible (${visible[1]} s)` : ''}${peak ? `; peak RSS ${peak[1]} MB` : ''}${cpu ? `; CPU of every thread ${cpu[1]} s (${cpu[2]} µs/event): on ${cpu[3]} cores at least ${cpu[4]} s` : ''}`,
    details: {
      events,
      copySeconds: Number(copy[1]),
      visibleSeconds: visible ? Number(visible[1]) : null,
      visibleRate: visible ? number(visible[2]!) : null,
      cpuSeconds: cpu ? Number(cpu[1]) : null,
      output: output.split('\n').slice(-12),
    },
  };
}
