import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { DuplicateEntityError } from '../errors';
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
      evolve: (state, event) => {
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
});
