/**
 * What a rebuild of the read models costs, projection by projection: the
 * bench's rebuild log (bench/lib/time-travel-world.ts, N events in one
 * environment) replayed in this process by a ProjectionRunner into a fresh
 * read-model database, once per variant: the core projections alone, with
 * each feature's projection added on its own, everything as shipped, and
 * everything with larger batches (one transaction each). Prints wall time,
 * events/s and CPU per event for each.
 *
 *   REBUILD_EVENTS=100000 node -r @swc-node/register bench/rebuild-breakdown.ts
 *   REBUILD_VARIANTS=shipped,1000 node -r @swc-node/register bench/rebuild-breakdown.ts
 *
 * REBUILD_VARIANTS picks variants by their key (core, grants, history, audit,
 * shipped, 1000, 20000; default all), to compare a change back to back quickly.
 * REBUILD_WORLD=bulk replays the log the bulk-load row writes instead (the
 * full data set through the bulk endpoints; REBUILD_EVENTS is refused with it).
 *
 * The difference between a variant and `core` is what that projection adds;
 * see docs/benchmarks.md and docs/bench-history/.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedFeatures } from '../app/features';
import { replayLog, replayWorld } from './lib/rebuild-log';

const { open: openLog } = replayWorld('REBUILD_WORLD');
const ALL = ['derived-grants', 'time-travel', 'audit-log', 'environment-copy'];
/** `catchUpBatchSize` undefined: the runner's default, as shipped. */
const VARIANTS: Array<{ key: string; label: string; features: string[]; catchUpBatchSize?: number }> = [
  { key: 'core', label: 'core (facts, schema, org)', features: [] },
  { key: 'grants', label: 'core + grants', features: ['derived-grants'] },
  { key: 'history', label: 'core + history', features: ['time-travel'] },
  { key: 'audit', label: 'core + audit index', features: ['audit-log'] },
  { key: 'shipped', label: 'all (as shipped)', features: ALL },
  { key: '1000', label: 'all, batches of 1,000', features: ALL, catchUpBatchSize: 1000 },
  { key: '20000', label: 'all, batches of 20,000', features: ALL, catchUpBatchSize: 20_000 },
];
const picked = process.env.REBUILD_VARIANTS?.split(',').map((key) => key.trim());
const unknown = picked?.filter((key) => !VARIANTS.some((v) => v.key === key)) ?? [];
if (unknown.length > 0)
  throw new Error(`REBUILD_VARIANTS: unknown ${unknown.join(', ')} (known: ${VARIANTS.map((v) => v.key).join(', ')})`);

async function main(): Promise<void> {
  const log = await openLog();
  const { head } = log;
  try {
    console.log(`${head.toLocaleString('en-US')} events; each variant replays them all into a fresh read-model database`);
    for (const variant of VARIANTS.filter((v) => !picked || picked.includes(v.key))) {
      const dir = mkdtempSync(join(tmpdir(), 'rebac-rebuild-'));
      const features = embeddedFeatures().filter((f) => variant.features.includes(f.name));
      const options = variant.catchUpBatchSize === undefined ? {} : { catchUpBatchSize: variant.catchUpBatchSize };
      const { wallS, cpuUs, writtenBytes } = await replayLog(log, join(dir, 'read-models.sqlite'), features, options).catch(
        (error: unknown) => {
          throw new Error(`${variant.label}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        },
      );
      const fileMb = statSync(join(dir, 'read-models.sqlite')).size / 1e6;
      rmSync(dir, { recursive: true, force: true });
      const cpuPerEvent = cpuUs / head;
      const kibPerEvent = writtenBytes === null ? '-' : (writtenBytes / head / 1024).toFixed(1);
      const eventsPerS = Math.round(head / wallS).toLocaleString('en-US');
      console.log(
        `${variant.label.padEnd(26)} ${wallS.toFixed(1).padStart(6)} s  ${eventsPerS.padStart(7)} events/s  ` +
          `${cpuPerEvent.toFixed(0).padStart(4)} µs CPU/event  ${fileMb.toFixed(0).padStart(5)} MB read models  ` +
          `${kibPerEvent.padStart(5)} KiB written/event`,
      );
    }
  } finally {
    await log.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
