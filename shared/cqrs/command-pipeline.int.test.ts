import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { DuplicateEntityError, PayloadTooLargeError, UnavailableError } from '../errors';
import type { EventStore } from '../eventstore/port';
import { SqliteEventStore } from '../eventstore/sqlite-event-store';
import type { EventData, EventMetadata } from '../events/envelope';
import { CommandPipeline } from './command-pipeline';
import type { Decider } from './decider';

type Claim = EventData<'Claimed', { name: string }>;
/** A tiny decider: names can be claimed once. */
const claims: Decider<{ name: string }, Set<string>, Claim> = {
  initialState: () => new Set(),
  evolve: (state, event) => state.add(event.data.name),
  decide: (command, state) => {
    if (state.has(command.name)) throw new DuplicateEntityError(`${command.name} is taken`);
    return [{ type: 'Claimed', data: { name: command.name } }];
  },
};
type Note = EventData<'Noted', { name: string; payload: unknown }>;
/** Notes whatever payload it is given: the events can be anything, stored or not. */
const notes: Decider<{ name: string; payload?: unknown }, null, Note> = {
  initialState: () => null,
  evolve: (state) => state,
  decide: (command) => [{ type: 'Noted', data: { name: command.name, payload: command.payload ?? null } }],
};
const noteNames = async (store: EventStore, streamId: string) =>
  (await store.readStream(streamId)).map((e) => (e.data as { name: string }).name);
/** Settled outcomes as 'ok' or the rejection's class name. */
const outcomes = (results: PromiseSettledResult<unknown>[]) =>
  results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as Error).constructor.name));

const meta: EventMetadata = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
const silent = pino({ level: 'silent' });

describe('command pipeline', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'pipeline-')), 'events.sqlite');
  const store = new SqliteEventStore({ path });
  afterAll(() => store.close());

  it('decides concurrent commands in order against each other, refusing only the conflicting one', async () => {
    const pipeline = new CommandPipeline(store, claims, silent, null);
    const results = await Promise.allSettled(['a', 'b', 'a', 'c'].map((name) => pipeline.execute('claims-1', { name }, meta)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEntityError);
    expect((await store.readStream('claims-1')).map((e) => (e.data as { name: string }).name)).toEqual(['a', 'b', 'c']);
  });

  it('lets the event loop run while it folds a long stream (the store reads synchronously)', async () => {
    const names = Array.from({ length: 12_000 }, (_, i) => ({ type: 'Claimed' as const, data: { name: `n${i}` }, metadata: meta }));
    for (let i = 0; i < names.length; i += 4_000)
      await store.append('claims-long', names.slice(i, i + 4_000), i === 0 ? 'no_stream' : i - 1);
    // Counts the loop's turns while a fresh pipeline folds the 12,000 events.
    let turns = 0;
    let folding = true;
    const turn = () => {
      turns++;
      if (folding) setImmediate(turn);
    };
    setImmediate(turn);
    const state = await new CommandPipeline(store, claims, silent, null).currentState('claims-long');
    folding = false;
    expect(state.size).toBe(12_000);
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('notices writes by another pipeline (another process) and retries on a version conflict', async () => {
    const one = new CommandPipeline(store, claims, silent, null);
    const two = new CommandPipeline(store, claims, silent, null);
    await one.execute('claims-2', { name: 'x' }, meta);
    await two.execute('claims-2', { name: 'y' }, meta);
    // `one` has a stale cache; it must catch up and still refuse a duplicate of y.
    await expect(one.execute('claims-2', { name: 'y' }, meta)).rejects.toBeInstanceOf(DuplicateEntityError);
    const racing = await Promise.allSettled([one.execute('claims-2', { name: 'p' }, meta), two.execute('claims-2', { name: 'q' }, meta)]);
    expect(racing.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect((await store.readStream('claims-2')).map((e) => (e.data as { name: string }).name).sort()).toEqual(['p', 'q', 'x', 'y']);
  });

  it('folds each event once when state is read while commands for the stream run', async () => {
    type Tick = EventData<'Ticked', { n: number }>;
    // Counting is not idempotent: an event folded twice shows in the count.
    const counter: Decider<{ n: number }, { count: number }, Tick> = {
      initialState: () => ({ count: 0 }),
      evolve: (state, _event) => {
        state.count += 1;
        return state;
      },
      decide: (command) => [{ type: 'Ticked', data: { n: command.n } }],
    };
    const seeded = Array.from({ length: 12_000 }, (_, n) => ({ type: 'Ticked', data: { n }, metadata: meta }));
    await store.append('ticks-1', seeded, 'no_stream');
    const pipeline = new CommandPipeline(store, counter, silent, null);
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      work.push(pipeline.currentState('ticks-1'));
      work.push(pipeline.execute('ticks-1', { n: i }, meta));
    }
    await Promise.all(work);
    expect((await pipeline.currentState('ticks-1')).count).toBe((await store.streamVersion('ticks-1')) + 1);
  });

  it('refuses to append an event that does not match the event schema', async () => {
    const { z } = await import('zod');
    const strict = z.object({ type: z.literal('Claimed'), data: z.object({ name: z.string().min(2) }) });
    const pipeline = new CommandPipeline(store, claims, silent, strict);
    await expect(pipeline.execute('claims-4', { name: 'x' }, meta)).rejects.toThrow();
    expect(await store.readStream('claims-4')).toEqual([]);
    await expect(pipeline.execute('claims-4', { name: 'xy' }, meta)).resolves.toMatchObject({ streamVersion: 0 });
  });

  it('returns the position of the append so callers can wait for read models', async () => {
    const pipeline = new CommandPipeline(store, claims, silent, null);
    const outcome = await pipeline.execute('claims-3', { name: 'z' }, meta);
    expect(outcome.position).toBe(await store.headPosition());
    expect(outcome.events).toEqual([{ type: 'Claimed', data: { name: 'z' } }]);
  });

  describe('one command cannot fail the others of its batch', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };

    it('refuses alone a command whose events JSON cannot hold (too deep, a cycle, a BigInt), and stores the rest', async () => {
      const pipeline = new CommandPipeline(store, notes, silent, null);
      const payloads: unknown[] = ['fine', deep, 'fine', cyclic, 'fine', 10n, 'fine'];
      const results = await Promise.allSettled(payloads.map((payload, i) => pipeline.execute('notes-1', { name: `n${i}`, payload }, meta)));
      expect(outcomes(results)).toEqual(['ok', 'InvalidRequestError', 'ok', 'InvalidRequestError', 'ok', 'InvalidRequestError', 'ok']);
      expect(((results[1] as PromiseRejectedResult).reason as Error).message).toMatch(/nested too deeply/);
      expect(await noteNames(store, 'notes-1')).toEqual(['n0', 'n2', 'n4', 'n6']);
    });

    it("refuses alone a command with an event over the store's size limit (413)", async () => {
      const small = new SqliteEventStore({ path: join(mkdtempSync(join(tmpdir(), 'pipeline-')), 'events.sqlite'), maxEventBytes: 1000 });
      try {
        const pipeline = new CommandPipeline(small, notes, silent, null);
        const payloads = ['a', 'é'.repeat(600), 'b', 'x'.repeat(2000), 'c'];
        const results = await Promise.allSettled(
          payloads.map((payload, i) => pipeline.execute('notes-2', { name: `n${i}`, payload }, meta)),
        );
        expect(outcomes(results)).toEqual(['ok', 'PayloadTooLargeError', 'ok', 'PayloadTooLargeError', 'ok']);
        expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(PayloadTooLargeError);
        expect(await noteNames(small, 'notes-2')).toEqual(['n0', 'n2', 'n4']);
      } finally {
        await small.close();
      }
    });

    /** The store, refusing any append that holds an event named `poison` (as an engine refuses what it cannot take). */
    function refusing(poison: string, error: () => Error): EventStore & { appends: number } {
      const wrapper = Object.create(store) as EventStore & { appends: number };
      wrapper.appends = 0;
      wrapper.append = (streamId, events, expected) => {
        wrapper.appends += 1;
        if (events.some((e) => (e.data as { name?: string }).name === poison)) return Promise.reject(error());
        return store.append(streamId, events, expected);
      };
      return wrapper;
    }

    it("appends a batch's commands one by one when the store refuses the batch (unless it is unreachable), failing only the one it refuses", async () => {
      const picky = refusing('n3', () => new Error('engine says no'));
      const pipeline = new CommandPipeline(picky, notes, silent, null);
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => pipeline.execute('notes-3', { name: `n${i}`, payload: i }, meta)),
      );
      expect(outcomes(results)).toEqual(['ok', 'ok', 'ok', 'Error', 'ok', 'ok', 'ok', 'ok']);
      expect(((results[3] as PromiseRejectedResult).reason as Error).message).toBe('engine says no');
      expect(await noteNames(store, 'notes-3')).toEqual(['n0', 'n1', 'n2', 'n4', 'n5', 'n6', 'n7']);

      // Not when the store is unreachable: each would wait for its own failure; all fail at once.
      const down = refusing('n0', () => new UnavailableError('the event store is not reachable'));
      const unreachable = new CommandPipeline(down, notes, silent, null);
      const failed = await Promise.allSettled(Array.from({ length: 5 }, () => unreachable.execute('notes-4', { name: 'n0' }, meta)));
      expect(outcomes(failed)).toEqual(Array(5).fill('UnavailableError'));
      expect(down.appends).toBe(1);
    });
  });
});
