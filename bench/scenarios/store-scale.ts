import type { BenchContext } from '../lib/context';
import { TENANT } from '../lib/dataset';
import { bulkSend, FACTS, instancesPut, loadSchema, range, tuplesPost } from '../lib/load-ours';
import type { ScenarioResult } from '../lib/results';
import { environmentKey, startService } from '../lib/service';
import { auditLogScenario } from './audit-log';

const MiB = (n: number) => `${Math.round(n)} MiB`;

/**
 * A store with T relationship tuples (over 100,000 instances at full scale, no
 * role assignments, so the projections only index them), in a service of its
 * own. Measures the server's memory once loaded, then restarts it on the same
 * data and measures the cold start: until `/readyz`, whether the projections
 * resumed from their checkpoint or replayed, the first check, and the first
 * write (which has to bring the environment's decider state up from the log).
 * On that store, the audit log's filtered pages (audit-log.ts).
 */
export async function storeScaleScenarios(ctx: Pick<BenchContext, 'options' | 'log'>): Promise<ScenarioResult[]> {
  const tuples = ctx.options.memoryTuples;
  const instances = tuples >= 1_000_000 ? 100_000 : Math.max(1000, Math.round(tuples / 5));
  const folders = Math.round(instances / 10);
  const documents = instances - folders;
  const chunk = ctx.options.bulkChunk;
  const profileDir = ctx.options.profileDir ? `${ctx.options.profileDir}/store-scale` : undefined;

  ctx.log(
    `memory: fresh service, ${instances.toLocaleString('en-US')} instances and ${tuples.toLocaleString('en-US')} tuples through the bulk endpoints`,
  );
  const service = await startService({ cpuProfileDir: profileDir, nodeOptions: ctx.options.serverNodeOptions });
  const results: ScenarioResult[] = [];
  try {
    const api = await environmentKey(service.admin);
    await loadSchema(api);
    const loadStarted = performance.now();
    await bulkSend(
      (function* () {
        yield* range(folders, (f) => ({ key: `f${f}`, resource: 'folder', tenant: TENANT }));
        yield* range(documents, (d) => ({ key: `d${d}`, resource: 'document', tenant: TENANT }));
      })(),
      chunk,
      2,
      instancesPut(api),
    );
    // Tuple i: document i mod D under its (i div D)-th folder, all distinct.
    const tupleLoad = await bulkSend(
      range(tuples, (i) => {
        const d = i % documents;
        const k = Math.floor(i / documents);
        return { subject: `folder:f${((d % folders) + k) % folders}`, relation: 'parent', object: `document:d${d}` };
      }),
      chunk,
      2,
      tuplesPost(api),
    );
    const loadMs = performance.now() - loadStarted;
    await api.ok('POST', `${FACTS}/role_assignments`, { user: 'mem-user', role: 'viewer', resource_instance: 'document:d0' });
    await api.ok('POST', '/allowed', { user: 'mem-user', action: 'read', resource: { type: 'document', key: 'd0', tenant: TENANT } });
    const loaded = service.memory();
    const position = Number((await service.admin.ok('GET', '/readyz')).position);
    if (ctx.options.only.has('audit-log')) results.push(await auditLogScenario(ctx, api, { events: position, folders, documents }));
    results.push({
      id: 'memory',
      title: `memory with ${tuples.toLocaleString('en-US')} tuples`,
      value: loaded?.rssMiB ?? NaN,
      unit: 'MiB',
      better: 'lower',
      target: { text: '≤ 1 GiB RSS (1M tuples)', met: tuples >= 1_000_000 ? (loaded?.rssMiB ?? Infinity) <= 1024 : null },
      notes: `server RSS after loading${ctx.options.serverNodeOptions ? ` (NODE_OPTIONS=${ctx.options.serverNodeOptions})` : ''}; peak ${MiB(loaded?.peakMiB ?? NaN)}; anonymous ${MiB(loaded?.anonMiB ?? NaN)}, file-backed ${MiB(loaded?.fileMiB ?? NaN)}; ${position.toLocaleString('en-US')} events; tuples loaded at ${Math.round(tuples / (tupleLoad.ms / 1000)).toLocaleString('en-US')}/s`,
      details: { tuples, instances, events: position, loadMs, tupleLoadMs: tupleLoad.ms, memory: loaded },
    });

    if (!ctx.options.only.has('cold-start')) return results;
    ctx.log(`cold start: restarting on ${position.toLocaleString('en-US')} events`);
    await service.stop({ keepData: true });
    const restarted = await startService({
      dataDir: service.dataDir,
      env: { LOG_LEVEL: 'info' },
      cpuProfileDir: profileDir,
      nodeOptions: ctx.options.serverNodeOptions,
    });
    try {
      const ready = restarted.memory();
      const resumed = /"from":(\d+),"head":(\d+)[^\n]*projections starting/.exec(restarted.child.output());
      const from = resumed ? Number(resumed[1]) : NaN;
      const head = resumed ? Number(resumed[2]) : NaN;
      const restartedApi = restarted.admin.withKey(api.key);
      let t = performance.now();
      const check = await restartedApi.ok('POST', '/allowed', {
        user: 'mem-user',
        action: 'read',
        resource: { type: 'document', key: 'd0', tenant: TENANT },
      });
      const firstCheckMs = performance.now() - t;
      t = performance.now();
      await restartedApi.ok('POST', `${FACTS}/role_assignments`, { user: 'mem-user-2', role: 'viewer', resource_instance: 'document:d1' });
      const firstWriteMs = performance.now() - t;
      const afterWrite = restarted.memory();
      const noReplay = from === head;
      results.push({
        id: 'cold-start',
        title: `cold start with ${position.toLocaleString('en-US')} events`,
        value: restarted.readyAfterMs / 1000,
        unit: 's',
        better: 'lower',
        target: {
          text: '≤ 3 s to ready, no full replay (1M events)',
          met: position >= 1_000_000 ? restarted.readyAfterMs <= 3000 && noReplay && check.allow === true : null,
        },
        notes: `spawn → /readyz 200; projections resumed at ${from.toLocaleString('en-US')} of ${head.toLocaleString('en-US')} (${noReplay ? 'no replay' : 'REPLAYED'}); first check ${Math.round(firstCheckMs)} ms; first write ${Math.round(firstWriteMs)} ms (decider state from the log); RSS ${MiB(ready?.rssMiB ?? NaN)} → ${MiB(afterWrite?.rssMiB ?? NaN)} after it`,
        details: {
          events: position,
          readyMs: restarted.readyAfterMs,
          from,
          head,
          firstCheckMs,
          firstWriteMs,
          rssReadyMiB: ready?.rssMiB,
          rssAfterWriteMiB: afterWrite?.rssMiB,
        },
      });
    } finally {
      await restarted.stop();
    }
  } finally {
    await service.stop();
  }
  return results;
}
