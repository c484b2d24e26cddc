import { bytesWrittenOf, cpuSecondsOf } from '../lib/child';
import type { BenchContext } from '../lib/context';
import { TENANT } from '../lib/dataset';
import { FACTS } from '../lib/load-ours';
import type { ScenarioResult } from '../lib/results';

interface CreateKind {
  id: string;
  title: string;
  path: string;
  /** The body of the n-th create of this kind in the run (unique, valid against the loaded data set). */
  body(n: number): unknown;
}

/**
 * Single durable creates, each its own request (64 connections): every 200 is
 * fsynced in the log and visible to reads. Bodies are unique across repeats.
 */
function kinds(ctx: BenchContext): CreateKind[] {
  const { folders, documents, users } = ctx.dataset.size;
  return [
    {
      id: 'create-instance',
      title: 'create resource instance',
      path: `${FACTS}/resource_instances`,
      body: (n) => ({ key: `w${n}`, resource: 'document', tenant: TENANT }),
    },
    {
      // editor directly on a document: no such assignment in the data set, and it derives nothing further.
      id: 'create-assignment',
      title: 'create role assignment',
      path: `${FACTS}/role_assignments`,
      body: (n) => ({ user: `u${n % users}`, role: 'editor', resource_instance: `document:d${Math.floor(n / users) % documents}` }),
    },
    {
      // a second parent folder for a document: derives the new folder's roles onto it.
      id: 'create-tuple',
      title: 'create relationship tuple',
      path: `${FACTS}/relationship_tuples`,
      body: (n) => {
        const d = n % documents;
        const folder = (ctx.dataset.parentOf(d) + 1 + Math.floor(n / documents)) % folders;
        return { subject: `folder:f${folder}`, relation: 'parent', object: `document:d${d}` };
      },
    },
  ];
}

export async function createScenarios(ctx: BenchContext): Promise<ScenarioResult[]> {
  const { connections } = ctx.options;
  const out: ScenarioResult[] = [];
  for (const kind of kinds(ctx)) {
    let n = 0;
    const next = () => JSON.stringify(kind.body(n++));
    const sample = await ctx.api.request('POST', kind.path, next());
    if (sample.status !== 200) throw new Error(`${kind.title}: ${sample.status} ${JSON.stringify(sample.body)}`);
    ctx.log(`${kind.title}: single creates, ${connections} connections`);
    // CPU per create (every process of the service, warm-up included): steadier than req/s on a shared machine.
    const cpuBefore = cpuSecondsOf(ctx.service.child.pid);
    const writtenBefore = bytesWrittenOf(ctx.service.child.pid);
    const sentBefore = n;
    const measured = await ctx.measure({
      url: `${ctx.service.url}${kind.path}`,
      headers: ctx.api.headers,
      body: next,
      connections,
      label: kind.id,
    });
    const cpuAfter = cpuSecondsOf(ctx.service.child.pid);
    const cpuUsPerCreate = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / (n - sentBefore);
    const writtenAfter = bytesWrittenOf(ctx.service.child.pid);
    // Bytes written per create: the pages each one touches (COMMIT and checkpoint), a figure the machine's load does not move.
    const kibPerCreate = writtenBefore === null || writtenAfter === null ? null : (writtenAfter - writtenBefore) / 1024 / (n - sentBefore);
    const failed = measured.runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
    const base = await ctx.baselineFor(sample.bytes, connections);
    const ratio = measured.median.rps / base.median.rps;
    out.push({
      id: kind.id,
      title: `POST ${kind.title} (durable)`,
      value: measured.median.rps,
      unit: 'req/s',
      better: 'higher',
      p50Ms: measured.median.p50Ms,
      p99Ms: measured.median.p99Ms,
      baseline: { value: base.median.rps, unit: 'req/s', ratio },
      runs: measured.runs.map((r) => r.rps),
      target: { text: '≥ 50% of baseline', met: ratio >= 0.5 && failed === 0 },
      notes: `${connections} conns${cpuUsPerCreate === null ? '' : `; service CPU ${Math.round(cpuUsPerCreate)} µs per create`}${kibPerCreate === null ? '' : `, ${kibPerCreate.toFixed(1)} KiB written`}${failed > 0 ? `; ${failed} non-2xx/errors` : ''}`,
      details: { runs: measured.runs, baselineRuns: base.runs, responseBytes: sample.bytes, created: n, cpuUsPerCreate, kibPerCreate },
    });
  }
  return out;
}
