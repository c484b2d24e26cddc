import type { BulkLoadTiming } from '../lib/load-ours';
import type { ScenarioResult } from '../lib/results';

const perSecond = (objects: number, ms: number) => Math.round(objects / (ms / 1000));

/**
 * The bulk import endpoints, measured while loading the data set: instances
 * (`PUT bulk/resource_instances`), parent tuples (`POST relationship_tuples/bulk`)
 * and role assignments (`POST role_assignments/bulk`), each request all or
 * nothing, durable and visible to reads when it answers.
 */
export function bulkImportResult(timings: BulkLoadTiming[], chunk: number, concurrency: number): ScenarioResult {
  const objects = timings.reduce((n, t) => n + t.objects, 0);
  const ms = timings.reduce((n, t) => n + t.ms, 0);
  const rate = perSecond(objects, ms);
  const byKind = Object.fromEntries(timings.map((t) => [t.kind, perSecond(t.objects, t.ms)]));
  return {
    id: 'bulk-import',
    title: 'bulk import (instances, tuples, assignments)',
    value: rate,
    unit: 'objects/s',
    better: 'higher',
    target: { text: '≥ 80,000 objects/s', met: rate >= 80_000 },
    notes: `${objects.toLocaleString('en-US')} objects, ${chunk}/request, ${concurrency} in flight; ${timings.map((t) => `${t.kind} ${byKind[t.kind]!.toLocaleString('en-US')}/s`).join(', ')}`,
    details: { timings, byKind },
  };
}
