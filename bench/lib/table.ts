import type { ScenarioResult } from './results';

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return '—';
  switch (unit) {
    case 's':
      return `${value.toFixed(2)} s`;
    case 'ms':
      return `${value.toFixed(1)} ms`;
    case 'ratio':
      return `${value.toFixed(2)}×`;
    case '%':
      return `${value < 1 ? value.toPrecision(2) : value.toFixed(1)} %`;
    case 'MiB':
      return `${grouped(value)} MiB`;
    default:
      return `${grouped(value)} ${unit}`;
  }
}

/** min–max of the repetitions, when there were several. */
function spread(r: ScenarioResult): string {
  if (!r.runs || r.runs.length < 2) return '';
  const lo = Math.min(...r.runs);
  const hi = Math.max(...r.runs);
  return r.unit === 'ratio' ? ` (${lo.toFixed(2)}–${hi.toFixed(2)})` : ` (${grouped(lo)}–${grouped(hi)})`;
}

const ms = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '' : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);

function met(r: ScenarioResult): string {
  if (r.skipped) return 'skipped';
  if (r.error) return 'ERROR';
  if (!r.target) return '';
  if (r.target.met === null) return 'n/a (scale)';
  return r.target.met ? 'yes' : 'NO';
}

/** One plain-text table of every scenario of a run, then the notes, skips and errors under it. */
export function renderTable(results: ScenarioResult[]): string {
  const header = ['scenario', 'result', 'p50', 'p99', 'vs baseline', 'target', 'met'];
  const rows = results.map((r) => [
    r.title,
    r.skipped || r.error ? '—' : formatValue(r.value, r.unit) + spread(r),
    ms(r.p50Ms),
    ms(r.p99Ms),
    r.baseline ? `${(100 * r.baseline.ratio).toFixed(0)}% of ${grouped(r.baseline.value)} ${r.baseline.unit}` : '',
    r.target?.text ?? '',
    met(r),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), ''];
  for (const r of results) {
    if (r.skipped) out.push(`- ${r.title}: skipped: ${r.skipped}`);
    else if (r.error) out.push(`- ${r.title}: ERROR: ${r.error.split('\n')[0]}`);
    else if (r.notes) out.push(`- ${r.title}: ${r.notes}`);
  }
  // Rows of one scenario share its probe: one entry per probe, naming its rows.
  const hosts = new Map<string, string[]>();
  for (const r of results.filter((row) => row.host)) {
    const text = hostText(r.host!);
    hosts.set(text, [...(hosts.get(text) ?? []), r.id]);
  }
  if (hosts.size > 0)
    out.push(
      `- host before each row (µs per document / per row; steal during it): ${[...hosts].map(([text, ids]) => `${ids.join(', ')} ${text}`).join('; ')}`,
    );
  return out.join('\n');
}

const hostText = (host: NonNullable<ScenarioResult['host']>) =>
  `${host.jsUs}/${host.sqliteUs}${host.stealPercent === null ? '' : `, steal ${host.stealPercent}%`}`;
