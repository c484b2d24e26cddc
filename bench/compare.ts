/**
 * Compares two benchmark result files (bench/results/*.json):
 *
 *   node -r @swc-node/register bench/compare.ts OLD.json NEW.json [--threshold=10] [--fail-on-regression]
 *   node -r @swc-node/register bench/compare.ts --latest [--threshold=10] [--fail-on-regression]
 *
 * Prints each scenario's figure in both runs and the change, and flags a
 * regression when the main figure is worse by more than the threshold (percent,
 * default 10), or when p99 grew by more than the threshold and at least 1 ms.
 * With --fail-on-regression it exits 1 if anything regressed (for CI).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResults, ScenarioResult } from './lib/results';
import { RESULTS_DIR } from './lib/results';
import { formatValue } from './lib/table';

export interface Delta {
  id: string;
  title: string;
  before: ScenarioResult | undefined;
  after: ScenarioResult | undefined;
  /** Relative change of the main figure, in percent, signed so that positive is better. */
  change: number | null;
  p99Change: number | null;
  status: 'ok' | 'better' | 'REGRESSION' | 'new' | 'gone' | 'not comparable';
}

const usable = (r: ScenarioResult | undefined): r is ScenarioResult =>
  r !== undefined && !r.skipped && !r.error && Number.isFinite(r.value);

/** Matches rows by id and classifies each change. */
export function compareResults(before: BenchResults, after: BenchResults, thresholdPct: number): Delta[] {
  const ids = [...new Set([...before.scenarios.map((s) => s.id), ...after.scenarios.map((s) => s.id)])];
  return ids.map((id): Delta => {
    const b = before.scenarios.find((s) => s.id === id);
    const a = after.scenarios.find((s) => s.id === id);
    const title = (a ?? b)!.title;
    if (!b) return { id, title, before: b, after: a, change: null, p99Change: null, status: 'new' };
    if (!a) return { id, title, before: b, after: a, change: null, p99Change: null, status: 'gone' };
    if (!usable(a) || !usable(b) || b.value === 0 || a.unit !== b.unit || a.title !== b.title) {
      return { id, title, before: b, after: a, change: null, p99Change: null, status: 'not comparable' };
    }
    const raw = (100 * (a.value - b.value)) / Math.abs(b.value);
    const change = a.better === 'higher' ? raw : -raw;
    const p99Change = a.p99Ms !== undefined && b.p99Ms !== undefined && b.p99Ms > 0 ? (100 * (a.p99Ms - b.p99Ms)) / b.p99Ms : null;
    const p99Regressed = p99Change !== null && p99Change > thresholdPct && a.p99Ms! - b.p99Ms! >= 1;
    const status = change < -thresholdPct || p99Regressed ? 'REGRESSION' : change > thresholdPct ? 'better' : 'ok';
    return { id, title, before: b, after: a, change, p99Change, status };
  });
}

function latestTwo(): [string, string] {
  const files = readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  if (files.length < 2) throw new Error(`need two result files in ${RESULTS_DIR}, found ${files.length}`);
  return [join(RESULTS_DIR, files.at(-2)!), join(RESULTS_DIR, files.at(-1)!)];
}

function main(): void {
  const args = process.argv.slice(2);
  const threshold = Number(args.find((a) => a.startsWith('--threshold='))?.split('=')[1] ?? 10);
  const failOnRegression = args.includes('--fail-on-regression');
  const paths = args.filter((a) => !a.startsWith('--'));
  const [oldPath, newPath] = args.includes('--latest') ? latestTwo() : paths;
  if (!oldPath || !newPath) {
    console.error('usage: bench/compare.ts OLD.json NEW.json | --latest [--threshold=10] [--fail-on-regression]');
    process.exit(2);
  }
  const before = JSON.parse(readFileSync(oldPath, 'utf8')) as BenchResults;
  const after = JSON.parse(readFileSync(newPath, 'utf8')) as BenchResults;
  console.log(`before: ${oldPath} (${before.mode}, ${before.startedAt}, commit ${before.commit})`);
  console.log(`after:  ${newPath} (${after.mode}, ${after.startedAt}, commit ${after.commit})`);
  if (before.mode !== after.mode)
    console.log(`warning: comparing a ${before.mode} run with a ${after.mode} run; scaled rows are not comparable`);
  if (before.machine.cpuModel !== after.machine.cpuModel || before.machine.cpus !== after.machine.cpus)
    console.log('warning: the runs were on different machines');
  console.log(`regression threshold: ${threshold}% on the main figure, ${threshold}% and ≥ 1 ms on p99`);
  console.log('');

  const deltas = compareResults(before, after, threshold);
  const cell = (r: ScenarioResult | undefined) =>
    r === undefined ? '—' : r.skipped ? 'skipped' : r.error ? 'error' : formatValue(r.value, r.unit);
  const rows = deltas.map((d) => [
    d.title,
    cell(d.before),
    cell(d.after),
    d.change === null ? '' : `${d.change >= 0 ? '+' : ''}${d.change.toFixed(1)}%`,
    d.p99Change === null ? '' : `${d.before!.p99Ms} → ${d.after!.p99Ms} ms`,
    d.status,
  ]);
  const header = ['scenario', 'before', 'after', 'change (+ = better)', 'p99', 'status'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  const regressions = deltas.filter((d) => d.status === 'REGRESSION');
  console.log('');
  console.log(
    regressions.length === 0 ? 'no regressions' : `${regressions.length} regression(s): ${regressions.map((d) => d.id).join(', ')}`,
  );
  if (failOnRegression && regressions.length > 0) process.exit(1);
}

if (require.main === module) main();
