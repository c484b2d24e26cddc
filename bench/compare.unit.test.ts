import { compareResults } from './compare';
import type { BenchResults, ScenarioResult } from './lib/results';

const run = (scenarios: ScenarioResult[]): BenchResults => ({
  schema: 1,
  startedAt: '',
  finishedAt: '',
  mode: 'full',
  commit: null,
  options: {},
  machine: { cpus: 2, cpuModel: 'x', memoryGiB: 1, node: 'v20', loadAvgAtStart: [] },
  scenarios,
});
const row = (id: string, value: number, extra: Partial<ScenarioResult> = {}): ScenarioResult => ({
  id,
  title: id,
  value,
  unit: 'req/s',
  better: 'higher',
  ...extra,
});

describe('bench/compare: regression flags (no timing, pure logic)', () => {
  it('flags a main figure worse by more than the threshold, in the direction that matters', () => {
    const deltas = compareResults(
      run([row('up', 100), row('down', 100), row('noise', 100), row('time', 2, { unit: 's', better: 'lower' })]),
      run([row('up', 130), row('down', 85), row('noise', 95), row('time', 2.5, { unit: 's', better: 'lower' })]),
      10,
    );
    expect(Object.fromEntries(deltas.map((d) => [d.id, d.status]))).toEqual({
      up: 'better',
      down: 'REGRESSION',
      noise: 'ok',
      time: 'REGRESSION',
    });
    expect(deltas.find((d) => d.id === 'time')!.change).toBeCloseTo(-25);
  });

  it('flags p99 growth beyond the threshold only when it is at least 1 ms', () => {
    const deltas = compareResults(
      run([row('small', 100, { p99Ms: 1 }), row('large', 100, { p99Ms: 4 })]),
      run([row('small', 100, { p99Ms: 1.8 }), row('large', 100, { p99Ms: 6 })]),
      10,
    );
    expect(deltas.map((d) => d.status)).toEqual(['ok', 'REGRESSION']);
  });

  it('does not compare skipped, failed, new or vanished rows', () => {
    const deltas = compareResults(
      run([row('skipped', 100), row('failed', 100), row('gone', 1)]),
      run([row('skipped', NaN, { skipped: 'no binary' }), row('failed', NaN, { error: 'boom' }), row('new', 1)]),
      10,
    );
    expect(Object.fromEntries(deltas.map((d) => [d.id, d.status]))).toEqual({
      skipped: 'not comparable',
      failed: 'not comparable',
      gone: 'gone',
      new: 'new',
    });
  });
});
