import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { CommandPipeline } from '../../shared/cqrs/command-pipeline';
import { envDecider } from '../../shared/domain/env/decider';
import { MAX_EXPIRIES_PER_COMMAND } from '../../shared/domain/env/expiry-decisions';
import { CURRENT_SCHEMA_VERSION, streams, type EnvEvent, type EventMetadata, type NewEvent } from '../../shared/events';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';

/**
 * More ends due at once than one ExpireDue command appends (docs/expiring-access.md §3): the
 * scheduler's commands, each decided against the stream's state, take them a slice at a time; two
 * replicas (a command pipeline each, on one log) doing so at the same instant append each expiry
 * once, in the order of the ends, ties in the order the facts got them; an end moved later or a
 * fact removed meanwhile expires nothing.
 */

const metadata: EventMetadata = { actor: null, timestamp: '2029-01-01T00:00:00.000Z', schemaVersion: CURRENT_SCHEMA_VERSION };
const EARLY = '2030-01-01T00:00:00.000Z';
const LATE = '2030-01-01T00:00:01.000Z';
const NOW = '2030-01-01T00:00:05.000Z';
const AFTER = '2030-06-01T00:00:00.000Z';
/** Past two commands' worth at each of two instants. */
const SIZE = 2 * MAX_EXPIRIES_PER_COMMAND + 700;

const assignment = (i: number) => ({
  id: `a-${i}`,
  user: `user-${i}`,
  role: 'editor',
  resource: 'folder',
  tenant: 'default',
  resourceInstance: `folder:f${i}`,
});
const tuple = (i: number) => ({ id: `t-${i}`, subject: `folder:f${i}`, relation: 'parent', object: `folder:f${i + 1}`, tenant: 'default' });

function* history(): Generator<EnvEvent> {
  yield {
    type: 'ResourceCreated',
    data: { id: 'r-folder', key: 'folder', name: 'Folder', description: null, actions: [], attributes: {} },
  };
  yield {
    type: 'RoleCreated',
    data: { id: 'r-editor', key: 'editor', resource: 'folder', name: 'Editor', description: null, permissions: [], attributes: {} },
  };
  yield {
    type: 'RelationCreated',
    data: { id: 'rel', key: 'parent', name: 'Parent', description: null, objectResource: 'folder', subjectResource: 'folder' },
  };
  yield { type: 'TenantCreated', data: { id: 't-default', key: 'default', name: 'Default', description: null, attributes: {} } };
  for (let i = 0; i < 2 * SIZE + 1; i++) {
    yield { type: 'UserCreated', data: { id: `u-${i}`, key: `user-${i}`, email: null, firstName: null, lastName: null, attributes: {} } };
    yield { type: 'ResourceInstanceCreated', data: { id: `f-${i}`, key: `f${i}`, resource: 'folder', tenant: 'default', attributes: {} } };
  }
  // Odd ones end early, even ones late: each instant's ends interleave in the order the facts got them.
  for (let i = 0; i < 2 * SIZE; i++) yield { type: 'RoleAssigned', data: { ...assignment(i), expiresAt: i % 2 === 1 ? EARLY : LATE } };
  for (let i = 0; i < 3; i++) yield { type: 'RelationshipTupleCreated', data: { ...tuple(i), expiresAt: LATE } };
  // Moved later, removed, and moved earlier: an end moved keeps the fact's place in the state's order, so a-0 leads the early ones.
  yield { type: 'RoleAssignmentExpirySet', data: { ...assignment(1), expiresAt: AFTER } };
  yield { type: 'RoleUnassigned', data: assignment(3) };
  yield { type: 'RelationshipTupleDeleted', data: tuple(1) };
  yield { type: 'RoleAssignmentExpirySet', data: { ...assignment(0), expiresAt: EARLY } };
}

describe('ends past one command', () => {
  let dir: string;
  let store: SqliteEventStore;
  const stream = streams.environment('env-many-ends');

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rebac-many-ends-'));
    store = new SqliteEventStore({ path: join(dir, 'events.sqlite') });
    let version: number | 'no_stream' = 'no_stream';
    let chunk: NewEvent[] = [];
    for (const event of history()) {
      chunk.push({ type: event.type, data: event.data, metadata });
      if (chunk.length === 2_000) {
        version = (await store.append(stream, chunk, version)).streamVersion;
        chunk = [];
      }
    }
    await store.append(stream, chunk, version);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends every end due, once, in the order of the ends, ties in the order the facts got them, across commands and replicas', async () => {
    const logger = pino({ level: 'silent' });
    const replicas = [new CommandPipeline(store, envDecider, logger), new CommandPipeline(store, envDecider, logger)];
    // Each replica's state caught up before either appends: their appends conflict, as two schedulers' do.
    for (const replica of replicas) await replica.currentState(stream);
    const expireAll = async (pipeline: CommandPipeline<any, any, EnvEvent>) => {
      const sizes: number[] = [];
      for (;;) {
        const outcome = await pipeline.execute(stream, { type: 'ExpireDue', now: NOW }, metadata);
        sizes.push(outcome.events.length);
        if (outcome.events.length < MAX_EXPIRIES_PER_COMMAND) return sizes;
      }
    };
    const sizes = await Promise.all(replicas.map(expireAll));
    for (const each of sizes) expect(Math.max(...each)).toBeLessThanOrEqual(MAX_EXPIRIES_PER_COMMAND);

    const events = (await store.readStream(stream)).filter((e) => e.type.endsWith('Expired'));
    const early = Array.from({ length: SIZE }, (_, k) => 2 * k + 1).filter((i) => i !== 1 && i !== 3);
    const late = Array.from({ length: SIZE }, (_, k) => 2 * k).filter((i) => i !== 0);
    const expected = [
      `RoleAssignmentExpired a-0 ${EARLY}`,
      ...early.map((i) => `RoleAssignmentExpired a-${i} ${EARLY}`),
      ...late.map((i) => `RoleAssignmentExpired a-${i} ${LATE}`),
      `RelationshipTupleExpired t-0 ${LATE}`,
      `RelationshipTupleExpired t-2 ${LATE}`,
    ];
    const got = events.map((e) => {
      const data = e.data as { id: string; expiresAt: string };
      return `${e.type} ${data.id} ${data.expiresAt}`;
    });
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
    expect(sizes.flat().reduce((a, b) => a + b, 0)).toBe(expected.length);

    // Nothing more is due; the end moved later comes at its time, once.
    const [first] = replicas;
    expect((await first!.execute(stream, { type: 'ExpireDue', now: NOW }, metadata)).events).toEqual([]);
    const later = await first!.execute(stream, { type: 'ExpireDue', now: AFTER }, metadata);
    expect(later.events.map((e) => [e.type, e.data.id])).toEqual([['RoleAssignmentExpired', 'a-1']]);
    // A replica started afresh folds the same log (no snapshot) and finds nothing due.
    const fresh = new CommandPipeline(store, envDecider, logger);
    expect((await fresh.execute(stream, { type: 'ExpireDue', now: AFTER }, metadata)).events).toEqual([]);
  });
});
