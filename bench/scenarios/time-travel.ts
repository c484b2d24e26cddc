import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { streams } from '../../shared/events';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import type { BenchContext } from '../lib/context';
import { sleep } from '../lib/child';
import { repeatLoad } from '../lib/load';
import type { ScenarioResult } from '../lib/results';
import { environmentKey, runOptions, startService } from '../lib/service';
import { timeTravelWorld, unitAllowed, WATCHED } from '../lib/time-travel-world';

/** Distinct checks each load rotates through. */
const CHECKS = 2_000;
/** Decision histories timed one after another. */
const HISTORIES = 10;

/**
 * Time travel on an environment of N events (bench/lib/time-travel-world.ts:
 * accounts → folders → documents with churn), appended straight into its
 * stream, then projected by a restarted service (history read model included):
 *
 * - `as-of-check`: `POST /allowed` with `as_of` the middle of the log, against
 *   the same checks asked now uncached (`Cache-Control: no-cache`), 4
 *   connections each; the ratio of their costs (mean time per request);
 * - `decision-history`: `POST /allowed/history` over the whole log for a
 *   decision that flips every few thousand units (a tuple two hops up).
 */
export async function timeTravelScenarios(ctx: Pick<BenchContext, 'options' | 'log'>): Promise<ScenarioResult[]> {
  const total = ctx.options.timeTravelEvents;
  const { durationS, repeat, warmupS } = ctx.options;
  ctx.log(`time travel: a ${total.toLocaleString('en-US')}-event environment, appended to the log of a fresh service`);
  const first = await startService(runOptions(ctx.options, 'time-travel-load'));
  const dataDir = first.dataDir;
  try {
    const environmentId = (await first.admin.ok('GET', '/v2/projects/default/envs/production')).id as string;
    await first.stop({ keepData: true });

    const store = new SqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    const world = timeTravelWorld(total);
    let version = await store.streamVersion(streams.environment(environmentId));
    let firstPosition = 0;
    let head = 0;
    const appendStarted = performance.now();
    for (const batch of world.batches) {
      const appended = await store.append(streams.environment(environmentId), batch, version < 0 ? 'no_stream' : version);
      if (firstPosition === 0) firstPosition = appended.position - batch.length + 1;
      version = appended.streamVersion;
      head = appended.position;
    }
    await store.close();
    const middle = firstPosition + Math.floor(total / 2);
    ctx.log(
      `appended ${total.toLocaleString('en-US')} events in ${Math.round(performance.now() - appendStarted)} ms; projecting them (restart)`,
    );

    const service = await startService({
      dataDir,
      env: { LOG_LEVEL: 'info' },
      ...runOptions(ctx.options, 'time-travel'),
      readyTimeoutMs: 60 * 60_000,
    });
    try {
      const catchUpS = service.readyAfterMs / 1000;
      // The command state is loaded in the background once ready: let it finish before measuring.
      for (let waited = 0; !service.child.output().includes('command state loaded') && waited < 600_000; waited += 200) await sleep(200);
      const api = await environmentKey(service.admin);
      ctx.log(`projected in ${catchUpS.toFixed(0)} s; measuring`);

      // Units whose churn is done by the middle of the log (and whose answers there are known).
      const unitsAtMiddle = Math.floor(world.units() / 2) - 10;
      const units = Array.from({ length: CHECKS }, (_, k) => 20 + Math.floor((k * (unitsAtMiddle - 20)) / CHECKS));
      const question = (i: number) => ({
        user: `u${i}`,
        action: 'write',
        resource: { type: 'document', key: `d${i}`, tenant: `t${i % 10}` },
      });
      const sample = units.filter((_, k) => k % 20 === 0);
      const past = await api.ok(
        'POST',
        '/allowed/bulk',
        sample.map((i) => ({ ...question(i), as_of: middle })),
      );
      const wrong = sample.filter((i, k) => past.allow[k].allow !== unitAllowed(i)).length;
      if (wrong > 0) throw new Error(`${wrong} of ${sample.length} as_of answers differ from the data set's`);
      const now = await api.ok('POST', '/allowed/bulk', sample.map(question));
      const nowWrong = sample.filter((i, k) => now.allow[k].allow !== unitAllowed(i)).length;
      if (nowWrong > 0) throw new Error(`${nowWrong} of ${sample.length} current answers differ from the data set's`);

      const rotate = (bodies: string[]) => {
        let k = 0;
        return () => bodies[k++ % bodies.length]!;
      };
      const load = (body: () => string, headers: Record<string, string>) =>
        repeatLoad({ url: `${service.url}/allowed`, headers, body, connections: 4, durationS }, repeat, warmupS);
      const current = await load(rotate(units.map((i) => JSON.stringify(question(i)))), { ...api.headers, 'cache-control': 'no-cache' });
      const asOf = await load(rotate(units.map((i) => JSON.stringify({ ...question(i), as_of: middle }))), api.headers);
      const ratio = current.median.rps / asOf.median.rps;

      const watched = { user: 'adm0', action: 'write', resource: `document:d${WATCHED}` };
      const timings: number[] = [];
      let changes = 0;
      let evaluated = 0;
      for (let k = 0; k < HISTORIES; k++) {
        const started = performance.now();
        const found = await api.ok('POST', '/allowed/history', { ...watched, since: firstPosition });
        timings.push(performance.now() - started);
        changes = found.changes.length;
        evaluated = found.evaluated;
      }
      timings.sort((a, b) => a - b);
      const p50 = timings[Math.floor(timings.length / 2)]!;
      const max = timings.at(-1)!;
      const full = total >= 1_000_000;
      const scale = `${total.toLocaleString('en-US')}-event environment (${world.units().toLocaleString('en-US')} units), projected in ${catchUpS.toFixed(0)} s`;
      return [
        {
          id: 'as-of-check',
          title: `POST /allowed as_of, ${total.toLocaleString('en-US')} events`,
          value: asOf.median.rps,
          unit: 'req/s',
          better: 'higher',
          p50Ms: asOf.median.p50Ms,
          p99Ms: asOf.median.p99Ms,
          runs: asOf.runs.map((r) => r.rps),
          baseline: { value: current.median.rps, unit: 'req/s (now, uncached)', ratio: 1 / ratio },
          target: { text: 'costs ≤ 10× a current uncached check', met: full ? ratio <= 10 : null },
          notes: `4 conns, as_of the middle of the log (position ${middle.toLocaleString('en-US')}); the same ${CHECKS.toLocaleString('en-US')} checks now, uncached: ${Math.round(current.median.rps)} req/s, p50 ${current.median.p50Ms} ms, p99 ${current.median.p99Ms} ms; cost ratio ${ratio.toFixed(2)}; ${scale}; answers verified on ${sample.length} checks`,
          details: { total, middle, head, current: current.runs, asOf: asOf.runs, ratio, catchUpS },
        },
        {
          id: 'decision-history',
          title: `POST /allowed/history over ${total.toLocaleString('en-US')} events`,
          value: p50,
          unit: 'ms',
          better: 'lower',
          p50Ms: Math.round(p50),
          target: { text: '< 1 s (1M events)', met: full ? max < 1000 : null },
          notes: `${changes} changes (a tuple two hops up toggled), ${evaluated} positions evaluated of ${(head - firstPosition + 1).toLocaleString('en-US')}; ${HISTORIES} requests in a row, max ${Math.round(max)} ms`,
          details: { timings, changes, evaluated },
        },
      ];
    } finally {
      await service.stop();
    }
  } finally {
    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
