/**
 * What a mass expiry costs the projections, in this process: EXPIRY_EVENTS (default 20,000)
 * folders, documents, parent tuples and folder-editor assignments that all end at one instant,
 * loaded through a real service as the `mass-expiry` row loads them (bench/scenarios/expiry.ts),
 * then the RoleAssignmentExpired events the scheduler appends for them, applied by a
 * ProjectionRunner with every projection as shipped. The load is replayed first, unmeasured; then
 * the expiries are appended and the runner's CPU (every thread of this process) and wall time are
 * measured until it reaches them all. CPU per expiry event is the figure to compare a change by:
 * unlike the row's seconds, it does not move with the checks the row sends meanwhile.
 *
 *   EXPIRY_EVENTS=100000 node -r @swc-node/register bench/expiry-projections.ts
 *   EXPIRY_FEATURES=derived-grants,time-travel node -r @swc-node/register bench/expiry-projections.ts
 *
 * EXPIRY_FEATURES picks the features whose projections run beside the core ones (default: every
 * shipped one; empty: the core alone), to split the cost by projection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildProjections, type Feature } from '../app/feature';
import { embeddedFeatures } from '../app/features';
import { ProjectionRunner } from '../projection-service/runner';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { CURRENT_SCHEMA_VERSION, streams, type NewEvent } from '../shared/events';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import { ReadModels } from '../shared/read-models/read-models';
import { assignmentsPost, bulkSend, range } from './lib/load-ours';
import { environmentKey, startService } from './lib/service';
import { assignment, loadFoldersAndDocuments } from './scenarios/expiry';

const SIZE = Number(process.env.EXPIRY_EVENTS ?? 20_000);
const features = pickedFeatures(process.env.EXPIRY_FEATURES);
/** Expiries per append, as the scheduler's commands append them (MAX_EXPIRIES_PER_COMMAND). */
const PER_APPEND = 1_000;

/** The shipped features named in `names` (comma-separated); all of them when unset. */
function pickedFeatures(names: string | undefined): Feature[] {
  const shipped = embeddedFeatures();
  if (names === undefined) return shipped;
  const picked = names
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = picked.filter((name) => !shipped.some((f) => f.name === name));
  if (unknown.length > 0)
    throw new Error(`EXPIRY_FEATURES: unknown ${unknown.join(', ')} (known: ${shipped.map((f) => f.name).join(', ')})`);
  return shipped.filter((f) => picked.includes(f.name));
}

async function main(): Promise<void> {
  // Far enough ahead that the service loading them expires none.
  const end = new Date(Date.now() + 3_600_000).toISOString();
  const service = await startService();
  let environmentId: string;
  try {
    environmentId = (await service.admin.ok('GET', '/v2/projects/default/envs/production')).id as string;
    const api = await environmentKey(service.admin);
    await loadFoldersAndDocuments(api, SIZE);
    await bulkSend(
      range(SIZE, (i) => assignment(i, end)),
      1_000,
      2,
      assignmentsPost(api),
    );
  } finally {
    await service.stop({ keepData: true });
  }
  const events = new SqliteEventStore({ path: join(service.dataDir, 'events.sqlite') });
  const dir = mkdtempSync(join(tmpdir(), 'rebac-expiry-'));
  const store = new SqliteDocumentStore(join(dir, 'read-models.sqlite'));
  const runner = new ProjectionRunner(events, store, buildProjections(ReadModels.writer(store), features), pino({ level: 'silent' }));
  try {
    const stream = streams.environment(environmentId);
    const loaded = await events.readStream(stream);
    const expiries: NewEvent[] = loaded
      .filter((e) => e.type === 'RoleAssigned')
      .map((e) => ({
        type: 'RoleAssignmentExpired',
        data: { ...(e.data as Record<string, unknown>), expiresAt: end },
        metadata: { actor: null, timestamp: end, schemaVersion: CURRENT_SCHEMA_VERSION },
      }));
    const loadedHead = await events.headPosition();
    await runner.start();
    if (!(await runner.waitForPosition(loadedHead, 3_600_000))) throw new Error('the load was not projected');

    const cpu = process.cpuUsage();
    const started = performance.now();
    const startedS = process.uptime();
    let version = loaded.length - 1;
    for (let i = 0; i < expiries.length; i += PER_APPEND)
      version = (await events.append(stream, expiries.slice(i, i + PER_APPEND), version)).streamVersion;
    const head = await events.headPosition();
    if (!(await runner.waitForPosition(head, 3_600_000))) throw new Error('the expiries were not projected');
    const wallS = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuPerEvent = (used.user + used.system) / expiries.length;
    console.log(
      `${expiries.length.toLocaleString('en-US')} expiries projected in ${wallS.toFixed(2)} s ` +
        `(${Math.round(expiries.length / wallS).toLocaleString('en-US')} events/s), ${cpuPerEvent.toFixed(1)} µs CPU per expiry (appending them included); ` +
        `measured from ${startedS.toFixed(1)} to ${process.uptime().toFixed(1)} s of the process (a profile's --window)`,
    );
  } finally {
    await runner.stop();
    await store.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(service.dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
