/**
 * What appending a mass expiry costs the process that decides it, in this process: EXPIRY_EVENTS
 * (default 100,000) role assignments on as many folders, all ending at one instant, are written to a
 * SQLite log; the environment's command pipeline (the one the service runs, its decider and event
 * schema) catches up with them, unmeasured; then the expiries are appended as the scheduler appends
 * them (command-service/expiry/scheduler.ts: ExpireDue commands until one appends fewer than
 * MAX_EXPIRIES_PER_COMMAND), and measured: the main thread's busy time (its event loop's, which
 * the service's requests share) and the process's CPU (the log's writer thread included), per
 * expiry.
 *
 *   node -r @swc-node/register bench/expiry-decisions.ts
 *   EXPIRY_EVENTS=20000 EXPIRY_ROUNDS=3 node -r @swc-node/register bench/expiry-decisions.ts
 *
 * EXPIRY_BUSY_MS (default 0) stands in for the requests a busy service answers meanwhile: each turn
 * of the event loop also spins that long, so the appends' wall time shows what each command's waits
 * for its turn cost (the mass-expiry row's checks keep the main thread nearly always busy).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { CommandPipeline } from '../shared/cqrs/command-pipeline';
import { envDecider } from '../shared/domain/env/decider';
import { MAX_EXPIRIES_PER_COMMAND } from '../shared/domain/env/expiry-decisions';
import { CURRENT_SCHEMA_VERSION, streams, type EnvEvent, type EventMetadata, type NewEvent } from '../shared/events';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';

const SIZE = Number(process.env.EXPIRY_EVENTS ?? 100_000);
const ROUNDS = Number(process.env.EXPIRY_ROUNDS ?? 1);
const BUSY_MS = Number(process.env.EXPIRY_BUSY_MS ?? 0);
const END = '2030-01-01T00:00:00.000Z';
const metadata: EventMetadata = { actor: null, timestamp: '2029-01-01T00:00:00.000Z', schemaVersion: CURRENT_SCHEMA_VERSION };

function* loadEvents(size: number): Generator<EnvEvent> {
  yield {
    type: 'ResourceCreated',
    data: { id: 'r-folder', key: 'folder', name: 'Folder', description: null, actions: [], attributes: {} },
  };
  yield {
    type: 'RoleCreated',
    data: { id: 'r-editor', key: 'editor', resource: 'folder', name: 'Editor', description: null, permissions: [], attributes: {} },
  };
  yield { type: 'TenantCreated', data: { id: 't-default', key: 'default', name: 'Default', description: null, attributes: {} } };
  for (let i = 0; i < size; i++) {
    yield { type: 'UserCreated', data: { id: `u-${i}`, key: `user-${i}`, email: null, firstName: null, lastName: null, attributes: {} } };
    yield { type: 'ResourceInstanceCreated', data: { id: `f-${i}`, key: `f${i}`, resource: 'folder', tenant: 'default', attributes: {} } };
    yield {
      type: 'RoleAssigned',
      data: {
        id: `a-${i}`,
        user: `user-${i}`,
        role: 'editor',
        resource: 'folder',
        tenant: 'default',
        resourceInstance: `folder:f${i}`,
        expiresAt: END,
      },
    };
  }
}

async function round(): Promise<{ busyMs: number; cpuMs: number; commands: number; appended: number; window: string; wallMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'rebac-expiry-decisions-'));
  const store = new SqliteEventStore({ path: join(dir, 'events.sqlite') });
  try {
    const stream = streams.environment('env-bench');
    let version: number | 'no_stream' = 'no_stream';
    let chunk: NewEvent[] = [];
    for (const event of loadEvents(SIZE)) {
      chunk.push({ type: event.type, data: event.data, metadata });
      if (chunk.length === 3_000) {
        version = (await store.append(stream, chunk, version)).streamVersion;
        chunk = [];
      }
    }
    if (chunk.length > 0) await store.append(stream, chunk, version);
    const pipeline = new CommandPipeline(store, envDecider, pino({ level: 'silent' }));
    await pipeline.currentState(stream);

    let busyLoop = BUSY_MS > 0;
    const spin = () => {
      const until = performance.now() + BUSY_MS;
      while (performance.now() < until);
      if (busyLoop) setImmediate(spin);
    };
    if (busyLoop) setImmediate(spin);
    const startedS = process.uptime();
    const startedMs = performance.now();
    const busy = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    let commands = 0;
    let appended = 0;
    for (;;) {
      const outcome = await pipeline.execute(stream, { type: 'ExpireDue', now: END }, { ...metadata, timestamp: new Date().toISOString() });
      commands += 1;
      appended += outcome.events.length;
      if (outcome.events.length < MAX_EXPIRIES_PER_COMMAND) break;
    }
    const wallMs = performance.now() - startedMs;
    busyLoop = false;
    const used = process.cpuUsage(cpu);
    const busyMs = performance.eventLoopUtilization(busy).active;
    if (appended !== SIZE) throw new Error(`appended ${appended} expiries, not ${SIZE}`);
    return {
      busyMs,
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      commands,
      appended,
      window: `${startedS.toFixed(1)}:${process.uptime().toFixed(1)}`,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (let i = 0; i < ROUNDS; i++) {
    const { busyMs, wallMs, cpuMs, commands, appended, window } = await round();
    console.log(
      `${appended.toLocaleString('en-US')} expiries appended by ${commands} commands in ${wallMs.toFixed(0)} ms${BUSY_MS > 0 ? ` (the loop spinning ${BUSY_MS} ms a turn)` : ''}: main thread busy ${busyMs.toFixed(0)} ms ` +
        `(${((busyMs * 1000) / appended).toFixed(1)} µs per expiry), process CPU ${cpuMs.toFixed(0)} ms (${((cpuMs * 1000) / appended).toFixed(1)} µs per expiry); measured in --window=${window} of the process`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
