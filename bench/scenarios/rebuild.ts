import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { streams } from '../../shared/events';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import type { BenchContext } from '../lib/context';
import type { ScenarioResult } from '../lib/results';
import { runOptions, startService } from '../lib/service';
import { timeTravelWorld } from '../lib/time-travel-world';

const TARGET = 60_000;

/** A pino line's `time` (ms since the epoch) for the first line carrying `msg`, or null. */
function loggedAt(output: string, msg: string): number | null {
  for (const line of output.split('\n')) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    try {
      return (JSON.parse(line) as { time: number }).time;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Rebuilding every read model from the log: what a new projection or a
 * recovered replica costs. An environment of N events (the time-travel world:
 * instances, tuples, users, assignments with churn) is appended straight into
 * the log of a stopped service; its read-model database is deleted (the event
 * log kept); the service starts again and every projection (facts, schema,
 * grants, history, audit index, tasks) replays the whole log. The embedded
 * service listens only once its projections reached the log's head, so the
 * time to `/readyz` is the rebuild plus the process's start-up; the rate is
 * taken from the server's own log lines ('projections starting' → 'service
 * listening'), the wall time to ready is in the notes.
 */
export async function rebuildScenario(ctx: Pick<BenchContext, 'options' | 'log'>): Promise<ScenarioResult> {
  const total = ctx.options.rebuildEvents;
  ctx.log(`rebuild: a ${total.toLocaleString('en-US')}-event log, read models deleted, service restarted`);
  const first = await startService(runOptions(ctx.options, 'rebuild-load'));
  const dataDir = first.dataDir;
  const emptyStartS = first.readyAfterMs / 1000;
  try {
    const environmentId = (await first.admin.ok('GET', '/v2/projects/default/envs/production')).id as string;
    await first.stop({ keepData: true });

    const store = new SqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    const world = timeTravelWorld(total);
    let version = await store.streamVersion(streams.environment(environmentId));
    const appendStarted = performance.now();
    for (const batch of world.batches) {
      const appended = await store.append(streams.environment(environmentId), batch, version < 0 ? 'no_stream' : version);
      version = appended.streamVersion;
    }
    const head = await store.headPosition();
    await store.close();
    ctx.log(`appended ${total.toLocaleString('en-US')} events in ${Math.round(performance.now() - appendStarted)} ms (head ${head})`);

    // Every read model goes; the event log stays.
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(join(dataDir, `read-models.sqlite${suffix}`), { force: true });

    const profileDir = ctx.options.profileDir ? `${ctx.options.profileDir}/rebuild` : undefined;
    const service = await startService({
      dataDir,
      env: { LOG_LEVEL: 'info' },
      cpuProfileDir: profileDir,
      nodeOptions: ctx.options.serverNodeOptions,
      readyTimeoutMs: 60 * 60_000,
    });
    try {
      const readyS = service.readyAfterMs / 1000;
      const output = service.child.output();
      const from = loggedAt(output, 'projections starting');
      const to = loggedAt(output, 'service listening');
      const rebuildS = from !== null && to !== null ? (to - from) / 1000 : readyS;
      const rate = head / rebuildS;
      const ready = await service.admin.ok('GET', '/readyz');
      if ((ready.position as number) < head)
        throw new Error(`ready at position ${ready.position as number}, before the log's head ${head}`);
      ctx.log(
        `rebuilt ${head.toLocaleString('en-US')} events in ${rebuildS.toFixed(1)} s (${Math.round(rate)} events/s); ready after ${readyS.toFixed(1)} s`,
      );
      if (profileDir) {
        writeFileSync(
          join(profileDir, 'phases.json'),
          `${JSON.stringify([{ label: 'rebuild', fromS: readyS - rebuildS, toS: readyS }], null, 2)}\n`,
        );
      }
      return {
        id: 'rebuild',
        title: `rebuild every read model, ${total.toLocaleString('en-US')} events`,
        value: rate,
        unit: 'events/s',
        better: 'higher',
        target: { text: `≥ ${TARGET.toLocaleString('en-US')} events/s (1M events)`, met: total >= 1_000_000 ? rate >= TARGET : null },
        notes: `${(rate / TARGET).toFixed(2)}× the target; ${head.toLocaleString('en-US')} events replayed in ${rebuildS.toFixed(1)} s (projections starting → listening); ${readyS.toFixed(1)} s from spawn to ready (an empty service: ${emptyStartS.toFixed(1)} s)`,
        details: { total, head, rebuildS, readyS, emptyStartS, ratio: rate / TARGET },
      };
    } finally {
      await service.stop();
    }
  } finally {
    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
