import type { BenchContext } from '../lib/context';
import type { HttpClient } from '../lib/http';
import type { ScenarioResult } from '../lib/results';

const LOG = '/v2/events/default/production';

export interface AuditLogShape {
  events: number;
  folders: number;
  documents: number;
}

interface Timed {
  label: string;
  p50Ms: number;
  p99Ms: number;
  meanMatches: number;
}

/**
 * Filtered pages of the audit log of one environment that holds the store-scale
 * data set (100,000 instances and 1,000,000 tuples at full scale: 1.1 M events),
 * one request at a time, each timed in this process (sub-millisecond resolution,
 * which autocannon's 1 ms buckets would hide). Every request asks for a different
 * instance or folder, so no answer comes from a warm page of the one before.
 */
export async function auditLogScenario(
  ctx: Pick<BenchContext, 'options' | 'log'>,
  api: HttpClient,
  shape: AuditLogShape,
): Promise<ScenarioResult> {
  const requests = ctx.options.mode === 'quick' ? 300 : 1000;
  const doc = (i: number) => `document:d${(i * 7919) % shape.documents}`;
  const folder = (i: number) => `folder:f${(i * 104_729) % shape.folders}`;
  const queries: Array<{ label: string; path: (i: number) => string }> = [
    { label: 'resource_instance=<document>', path: (i) => `${LOG}?resource_instance=${doc(i)}` },
    {
      label: 'resource_instance=<folder>&type=RelationshipTupleCreated, desc',
      path: (i) => `${LOG}?resource_instance=${folder(i)}&type=RelationshipTupleCreated&order=desc`,
    },
    { label: 'type=RoleAssigned (1 event in the log)', path: () => `${LOG}?type=RoleAssigned` },
    { label: 'latest 100, desc, no filter', path: () => `${LOG}?order=desc` },
  ];
  const timed: Timed[] = [];
  for (const query of queries) {
    for (let i = 0; i < 50; i++) await api.ok('GET', query.path(requests + i));
    const samples: number[] = [];
    let matches = 0;
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      const page = (await api.ok('GET', query.path(i))) as { data: unknown[] };
      samples.push(performance.now() - started);
      matches += page.data.length;
    }
    samples.sort((a, b) => a - b);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
    timed.push({ label: query.label, p50Ms: at(0.5), p99Ms: at(0.99), meanMatches: matches / requests });
    ctx.log(
      `audit log: ${query.label}: p50 ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, ${(matches / requests).toFixed(1)} entries a page`,
    );
  }
  const main = timed[0]!;
  const full = shape.events >= 1_000_000;
  return {
    id: 'audit-log',
    title: `audit log page, ${main.label}, ${shape.events.toLocaleString('en-US')} events`,
    value: main.p50Ms,
    unit: 'ms',
    better: 'lower',
    p50Ms: main.p50Ms,
    p99Ms: main.p99Ms,
    target: { text: 'milliseconds on 1M events (p99 ≤ 10 ms)', met: full ? main.p99Ms <= 10 : null },
    notes: `${requests} sequential GETs per query over loopback, each a different instance; ${timed
      .map((t) => `${t.label}: p50 ${t.p50Ms.toFixed(2)} ms, p99 ${t.p99Ms.toFixed(2)} ms (${t.meanMatches.toFixed(1)} entries)`)
      .join('; ')}`,
    details: { events: shape.events, requests, queries: timed },
  };
}
