import type { BenchContext } from '../lib/context';
import { loadOpenFga, openfgaBinary, openfgaCheck, openfgaCheckBody, startOpenFga } from '../lib/openfga';
import type { ScenarioResult } from '../lib/results';

const rotate = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};

/**
 * The same model, data and checks in OpenFGA (its in-memory datastore, or a
 * SQLite file; loopback, its HTTP API), driven exactly like our `/allowed` row:
 * same connections, duration and repeats, same check mix. Compared with our
 * row of this run.
 */
/**
 * `ours` is our uncached `/allowed` row (every check reads the store, as
 * OpenFGA's do with its check cache off, its default); `oursCached`, with our
 * decision cache on, is reported beside it.
 */
export async function peerScenario(
  ctx: BenchContext,
  ours: ScenarioResult | undefined,
  oursCached: ScenarioResult | undefined,
  datastore: 'memory' | 'sqlite',
): Promise<ScenarioResult> {
  const base = {
    id: datastore === 'memory' ? 'peer-openfga' : `peer-openfga-${datastore}`,
    title: `check throughput vs OpenFGA (${datastore})`,
    unit: 'ratio',
    better: 'higher' as const,
    value: NaN,
  };
  if (!(await openfgaBinary())) {
    return { ...base, skipped: 'no openfga binary: run scripts/openfga.sh install (builds it with go install from the Go module proxy)' };
  }
  if (!ours || ours.error || ours.skipped) return { ...base, skipped: 'our /allowed row did not run in this run' };
  const { connections } = ctx.options;
  ctx.log(`peer: starting OpenFGA (${datastore} datastore) and loading the same tuples`);
  const fga = await startOpenFga(datastore);
  try {
    const store = await loadOpenFga(fga, ctx.dataset);
    ctx.log(`peer: ${store.tuples.toLocaleString('en-US')} tuples written in ${(store.loadMs / 1000).toFixed(1)} s`);
    const sample = ctx.checks.slice(0, ctx.options.mode === 'quick' ? 200 : 500);
    let wrong = 0;
    for (const c of sample) if ((await openfgaCheck(fga, store, c)) !== c.expected) wrong++;
    if (wrong > 0) throw new Error(`OpenFGA answered ${wrong} of ${sample.length} checks differently from the reference`);
    const bodies = ctx.checks.map((c) => JSON.stringify(openfgaCheckBody(store.modelId, c)));
    ctx.log(`peer: OpenFGA /check, ${connections} connections`);
    const measured = await ctx.measure({ url: `${fga.url}/stores/${store.storeId}/check`, body: rotate(bodies), connections });
    const memory = fga.memory();
    const ratio = ours.value / measured.median.rps;
    return {
      ...base,
      value: ratio,
      p50Ms: measured.median.p50Ms,
      p99Ms: measured.median.p99Ms,
      runs: measured.runs.map((r) => ours.value / r.rps),
      // The target is at full scale: OpenFGA's memory datastore slows down with the number of tuples, so a quick run says little.
      target: { text: '≥ 2× OpenFGA check throughput (full scale)', met: ctx.options.mode === 'full' ? ratio >= 2 : null },
      notes: `ours uncached ${Math.round(ours.value).toLocaleString('en-US')} req/s p99 ${ours.p99Ms} ms${cachedNote(oursCached, measured.median.rps)}; OpenFGA ${Math.round(measured.median.rps).toLocaleString('en-US')} req/s p99 ${measured.median.p99Ms} ms; OpenFGA RSS ${Math.round(memory?.rssMiB ?? NaN)} MiB; its load took ${(store.loadMs / 1000).toFixed(0)} s`,
      details: {
        openfga: {
          rps: measured.median.rps,
          p50Ms: measured.median.p50Ms,
          p99Ms: measured.median.p99Ms,
          runs: measured.runs,
          tuples: store.tuples,
          loadMs: store.loadMs,
          rssMiB: memory?.rssMiB,
        },
        ours: { rps: ours.value, p50Ms: ours.p50Ms, p99Ms: ours.p99Ms },
        oursCached: oursCached ? { rps: oursCached.value, p50Ms: oursCached.p50Ms, p99Ms: oursCached.p99Ms } : null,
        verified: sample.length,
      },
    };
  } finally {
    await fga.stop();
  }
}

const cachedNote = (cached: ScenarioResult | undefined, theirs: number) =>
  cached && Number.isFinite(cached.value)
    ? ` (decision cache on: ${Math.round(cached.value).toLocaleString('en-US')} req/s, ${(cached.value / theirs).toFixed(2)}×)`
    : '';
