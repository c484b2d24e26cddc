/**
 * A picture of one trace as Jaeger holds it, for docs/tracing.md:
 *
 *   node -r @swc-node/register scripts/trace-screenshot.ts <JAEGER_QUERY_URL> <trace id> <out.png>
 *
 * The Jaeger built from the Go module (scripts/jaeger.sh) serves a placeholder page instead of its
 * UI, whose assets are built from another repository that no registry here serves. So this reads
 * the trace from Jaeger's query API (`/api/traces/<id>`, what the UI reads too) and draws it the
 * way the UI's trace view does: one row per span, nested under its parent, a bar on a shared time
 * axis, coloured by service, then has Debian's chromium (through playwright-core, as the console's
 * browser test does) take the screenshot. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

interface Span {
  spanID: string;
  operationName: string;
  processID: string;
  startTime: number;
  duration: number;
  references: Array<{ refType: string; spanID: string; traceID: string }>;
  tags: Array<{ key: string; value: unknown }>;
}
interface Trace {
  traceID: string;
  spans: Span[];
  processes: Record<string, { serviceName: string; tags?: Array<{ key: string; value: unknown }> }>;
}

const COLOURS = ['#17b8be', '#f8dca1', '#b7885e', '#ffcb99', '#f89570', '#829ae3', '#e79fd5', '#1e96be'];
/** Attributes worth a look on the row (the ones our spans set, and the HTTP route). */
const SHOWN = /^(rebac\.(decision|cache|events|appends|position|task_id|lane)|http\.route|messaging\.operation(\.type)?)$/;

async function main(): Promise<void> {
  const [queryUrl, traceId, out] = process.argv.slice(2);
  if (!queryUrl || !traceId || !out) throw new Error('usage: trace-screenshot.ts <JAEGER_QUERY_URL> <trace id> <out.png>');
  const response = await fetch(`${queryUrl}/api/traces/${traceId}`);
  if (!response.ok) throw new Error(`jaeger answered ${response.status} for trace ${traceId}`);
  const trace = ((await response.json()) as { data: Trace[] }).data[0];
  if (!trace) throw new Error(`jaeger has no trace ${traceId}`);
  const browserPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(browserPath)) throw new Error(`no chromium at ${browserPath}: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'rebac-trace-shot-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: browserPath,
    headless: true,
    viewport: { width: 1500, height: 400 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.setContent(render(trace));
    await page.screenshot({ path: out, fullPage: true });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** After the bar; before it when the bar ends far right; inside a bar that spans most of the axis. */
function placeLabel(left: number, width: number): string {
  if (width > 40) return `left:${left}%;font-weight:600`;
  return left + width > 70 ? `right:${100 - left}%;text-align:right` : `left:${left + width}%`;
}

function render(trace: Trace): string {
  const byId = new Map(trace.spans.map((span) => [span.spanID, span]));
  const parentOf = (span: Span) => span.references.find((ref) => ref.refType === 'CHILD_OF' && byId.has(ref.spanID))?.spanID;
  const children = new Map<string | undefined, Span[]>();
  for (const span of trace.spans) {
    const parent = parentOf(span);
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const rows: Array<{ span: Span; depth: number }> = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => a.startTime - b.startTime)) {
      rows.push({ span, depth });
      walk(span.spanID, depth + 1);
    }
  };
  walk(undefined, 0);
  const start = Math.min(...trace.spans.map((s) => s.startTime));
  const end = Math.max(...trace.spans.map((s) => s.startTime + s.duration));
  const total = Math.max(1, end - start);
  const services = [...new Set(Object.values(trace.processes).map((p) => p.serviceName))].sort();
  const colour = (service: string) => COLOURS[services.indexOf(service) % COLOURS.length]!;
  const ms = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us} µs`);
  const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const rowHtml = rows
    .map(({ span, depth }) => {
      const process = trace.processes[span.processID]!;
      const role = process.tags?.find((tag) => tag.key === 'rebac.process')?.value as string | undefined;
      const shown = span.tags
        .filter((tag) => SHOWN.test(tag.key))
        .map((tag) => `${tag.key}=${String(tag.value)}`)
        .join(' ');
      const links = span.references.filter((ref) => ref.refType === 'FOLLOWS_FROM').length;
      const left = ((span.startTime - start) / total) * 100;
      const width = Math.max(0.15, (span.duration / total) * 100);
      return `<div class="row">
        <div class="name" style="padding-left:${8 + depth * 14}px"><span class="svc" style="background:${colour(process.serviceName)}"></span>
          <b>${escape(process.serviceName)}</b>${role && !process.serviceName.endsWith(role) ? `<i>${escape(role)}</i>` : ''} ${escape(span.operationName)}</div>
        <div class="lane"><div class="bar" style="left:${left}%;width:${width}%;background:${colour(process.serviceName)}"></div>
          <span class="label" style="${placeLabel(left, width)}">${ms(span.duration)} ${escape(shown)}${links ? ` · ${links} link${links > 1 ? 's' : ''}` : ''}</span></div>
      </div>`;
    })
    .join('\n');
  const root = rows[0]?.span;
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { font: 12px/1.2 system-ui, sans-serif; margin: 0; color: #222; }
    header { padding: 10px 12px; border-bottom: 1px solid #ddd; background: #fafafa; }
    header h1 { font-size: 15px; margin: 0 0 4px; }
    .row { display: flex; border-bottom: 1px solid #f0f0f0; height: 22px; align-items: center; }
    .name { width: 540px; flex: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .name i { color: #777; margin: 0 4px; }
    .svc { display: inline-block; width: 4px; height: 14px; margin-right: 6px; vertical-align: middle; }
    .lane { position: relative; flex: 1; height: 100%; border-left: 1px solid #ddd; }
    .bar { position: absolute; top: 5px; height: 12px; border-radius: 2px; }
    .label { position: absolute; top: 4px; padding: 0 6px; color: #555; white-space: nowrap; }
  </style></head><body>
  <header><h1>${escape(root ? `${trace.processes[root.processID]!.serviceName}: ${root.operationName}` : trace.traceID)}</h1>
  trace ${trace.traceID} · ${trace.spans.length} spans · ${services.length} services (${services.map(escape).join(', ')}) · ${ms(total)} · from Jaeger's query API</header>
  ${rowHtml}
  </body></html>`;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
