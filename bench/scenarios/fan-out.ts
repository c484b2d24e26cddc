import type { BenchContext } from '../lib/context';
import { TENANT } from '../lib/dataset';
import { medianBy } from '../lib/load';
import { bulkSend, FACTS, instancesPut, range, tuplesPost } from '../lib/load-ours';
import type { ScenarioResult } from '../lib/results';

/**
 * Fan-out: a folder with N documents (bulk-loaded), then one write makes a user
 * editor on the folder. Timed from sending that write until every derived grant
 * is visible: the write answers only once the read models reflect it (its
 * position), and checks on a sample of the documents, the last one included,
 * confirm it. Then the role is taken away, timed the same way (in the notes:
 * how long a removed access keeps working), and the sample checked denied.
 * Assigned and taken away `--repeat` times (full scale: 3); the row is the
 * median, the notes give the range.
 */
export async function fanOutScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const files = ctx.options.fanoutFiles;
  const chunk = ctx.options.bulkChunk;
  ctx.log(`fan-out: loading a folder with ${files.toLocaleString('en-US')} documents`);
  await ctx.api.ok('POST', `${FACTS}/resource_instances`, { key: 'fan', resource: 'folder', tenant: TENANT });
  const loadInstances = await bulkSend(
    range(files, (i) => ({ key: `fan${i}`, resource: 'document', tenant: TENANT })),
    chunk,
    2,
    instancesPut(ctx.api),
  );
  const loadTuples = await bulkSend(
    range(files, (i) => ({ subject: 'folder:fan', relation: 'parent', object: `document:fan${i}` })),
    chunk,
    2,
    tuplesPost(ctx.api),
  );

  /**
   * The folder's editor assignment written (POST) or taken away (DELETE), timed until it answers,
   * which it does once the read models reflect it; the span is a phase of the CPU profile.
   */
  const timedAssignment = async (method: 'POST' | 'DELETE', label: string, expectedStatus: number): Promise<number> => {
    const started = performance.now();
    const answer = await ctx.api.request(method, `${FACTS}/role_assignments`, {
      user: 'fan-user',
      role: 'editor',
      resource_instance: 'folder:fan',
    });
    const ms = performance.now() - started;
    const origin = ctx.service.spawnedAt;
    ctx.phases.push({ label, fromS: (started - origin) / 1000, toS: (started + ms - origin) / 1000 });
    if (answer.status !== expectedStatus)
      throw new Error(`${method} role_assignments answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return ms;
  };

  const sample = [files - 1, ...Array.from({ length: 99 }, (_, i) => Math.floor((i * files) / 99))];
  const allowedInSample = async () => {
    const answers = await ctx.api.ok(
      'POST',
      '/allowed/bulk',
      sample.map((i) => ({ user: 'fan-user', action: 'write', resource: { type: 'document', key: `fan${i}`, tenant: TENANT } })),
    );
    return (answers.allow as Array<{ allow: boolean }>).filter((a) => a.allow).length;
  };

  // One fan-out is one sample of a row this machine spreads by a fifth or more: as many rounds as
  // an HTTP row has runs (--repeat), the median reported, with the range.
  const visibleRuns: number[] = [];
  const revokedRuns: number[] = [];
  for (let round = 1; round <= ctx.options.repeat; round++) {
    ctx.log(`fan-out: assigning editor on the folder (round ${round} of ${ctx.options.repeat})`);
    visibleRuns.push(await timedAssignment('POST', `fanout-${round}`, 200));
    const granted = await allowedInSample();
    if (granted < sample.length)
      throw new Error(`${sample.length - granted} of ${sample.length} sampled documents not granted after the write answered`);

    // Taking it away: how long a removed access keeps working (not a target of its own).
    ctx.log('fan-out: unassigning editor on the folder');
    revokedRuns.push(await timedAssignment('DELETE', `fanout-revoke-${round}`, 204));
    const stillGranted = await allowedInSample();
    if (stillGranted > 0) throw new Error(`${stillGranted} of ${sample.length} sampled documents still granted after the revoke answered`);
  }
  const visibleMs = medianBy(visibleRuns, (ms) => ms);
  const revokedMs = medianBy(revokedRuns, (ms) => ms);
  const spread = (runs: number[]) =>
    runs.length > 1 ? ` (${(Math.min(...runs) / 1000).toFixed(2)}–${(Math.max(...runs) / 1000).toFixed(2)} s)` : '';

  return {
    id: 'fanout',
    title: `fan-out: editor on a folder with ${files.toLocaleString('en-US')} docs`,
    value: visibleMs / 1000,
    unit: 's',
    better: 'lower',
    target: { text: '≤ 2 s until all grants visible', met: files >= 100_000 ? visibleMs <= 2000 : null },
    notes:
      `median of ${visibleRuns.length}${spread(visibleRuns)}; ${Math.round(files / (visibleMs / 1000)).toLocaleString('en-US')} grants/s; ` +
      `checked ${sample.length} docs after each write; taken away (all gone) in ${(revokedMs / 1000).toFixed(2)} s${spread(revokedRuns)}`,
    details: { files, visibleMs, revokedMs, visibleRuns, revokedRuns, loadInstancesMs: loadInstances.ms, loadTuplesMs: loadTuples.ms },
  };
}
