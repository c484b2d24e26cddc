import pino from 'pino';
import type { DecisionEntry, DecisionLogStore } from './port';
import { DecisionRecorder, type DecisionRecorderOptions } from './recorder';

/** A store that keeps appended batches in memory, and can be made slow or failing. */
function memoryStore(behaviour: { fail?: boolean; gate?: Promise<void> } = {}) {
  const batches: DecisionEntry[][] = [];
  const store: DecisionLogStore = {
    async append(entries) {
      await behaviour.gate;
      if (behaviour.fail) throw new Error('disk full');
      batches.push([...entries]);
    },
    query: async () => ({ entries: [], total: 0 }),
    get: async () => null,
    deleteOlderThan: async () => 0,
    keepNewest: async () => 0,
    close: async () => undefined,
  };
  return { store, batches };
}

const entry = (id: string) => ({ id }) as DecisionEntry;

function recorder(options: Partial<DecisionRecorderOptions> & Pick<DecisionRecorderOptions, 'openStore'>) {
  const counts = { written: 0, dropped: 0 };
  const r = new DecisionRecorder({
    mode: 'full',
    sampleRate: 1,
    maxBuffered: 100,
    flushMs: 60_000,
    retention: null,
    logger: pino({ level: 'silent' }),
    counts,
    ...options,
  });
  return { r, counts };
}

describe('DecisionRecorder', () => {
  it('wants every decision when full, none when off, a draw below the rate when sampled', () => {
    const open = async () => memoryStore().store;
    expect(recorder({ openStore: open }).r.wants()).toBe(true);
    expect(recorder({ openStore: open, mode: 'off' }).r.wants()).toBe(false);
    const draws = [0.1, 0.5, 0.29, 0.3];
    const sampled = recorder({ openStore: open, mode: 'sampled', sampleRate: 0.3, random: () => draws.shift()! }).r;
    expect([sampled.wants(), sampled.wants(), sampled.wants(), sampled.wants()]).toEqual([true, false, true, false]);
  });

  it('keeps about the rate’s share of decisions', () => {
    const { r } = recorder({ openStore: async () => memoryStore().store, mode: 'sampled', sampleRate: 0.25 });
    let kept = 0;
    for (let i = 0; i < 100_000; i++) if (r.wants()) kept++;
    // The mean is 25,000, the standard deviation 137: ±1,000 is beyond 7 of them.
    expect(Math.abs(kept - 25_000)).toBeLessThan(1_000);
  });

  it('writes the waiting entries in one batch, opening the store only then', async () => {
    const { store, batches } = memoryStore();
    let opened = 0;
    const { r, counts } = recorder({ openStore: async () => (opened++, store) });
    await r.flush();
    expect(opened).toBe(0);
    r.add(entry('a'));
    r.add(entry('b'));
    await r.flush();
    expect(batches).toEqual([[entry('a'), entry('b')]]);
    expect(counts).toEqual({ written: 2, dropped: 0 });
    expect(opened).toBe(1);
  });

  it('drops and counts what a full buffer cannot take, instead of waiting for the store', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { store, batches } = memoryStore({ gate });
    const { r, counts } = recorder({ openStore: async () => store, maxBuffered: 3 });
    for (const id of ['a', 'b', 'c']) r.add(entry(id));
    const writing = r.flush();
    // The store is slow: the buffer refills while the batch is written, and overflows.
    for (const id of ['d', 'e', 'f', 'g']) r.add(entry(id));
    expect(counts.dropped).toBe(1);
    release();
    await writing;
    await r.flush();
    expect(batches.map((b) => b.map((e) => e.id))).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    expect(counts).toEqual({ written: 6, dropped: 1 });
  });

  it('counts a batch the store refused as dropped, and keeps going', async () => {
    const behaviour = { fail: true };
    const { store, batches } = memoryStore(behaviour);
    const { r, counts } = recorder({ openStore: async () => store });
    r.add(entry('a'));
    await r.flush();
    expect(counts).toEqual({ written: 0, dropped: 1 });
    behaviour.fail = false;
    r.add(entry('b'));
    await r.close();
    expect(batches).toEqual([[entry('b')]]);
  });

  it('writes on its timer, and applies the retention bound on its own (not at start)', async () => {
    // The recorder's clock and timers are the test's: on a loaded machine real ones fire late.
    jest.useFakeTimers({ now: 1_800_000_000_000 });
    try {
      const { store, batches } = memoryStore();
      const deleted: number[] = [];
      store.deleteOlderThan = async (t) => (deleted.push(t), 0);
      store.keepNewest = async (max) => (deleted.push(max), 0);
      let opened = 0;
      const { r } = recorder({
        openStore: async () => (opened++, store),
        flushMs: 10,
        retention: { maxAgeMs: 1000, maxEntries: 7, everyMs: 100 },
      });
      await jest.advanceTimersByTimeAsync(50);
      // Nothing to write, and the retention's first time not come: the store is not opened.
      expect(opened).toBe(0);
      r.add(entry('a'));
      await jest.advanceTimersByTimeAsync(30);
      expect(batches).toEqual([[entry('a')]]);
      expect(deleted).toEqual([]);
      await jest.advanceTimersByTimeAsync(100);
      expect(deleted[1]).toBe(7);
      expect(Date.now() - 1000 - deleted[0]!).toBeLessThan(100);
      await r.close();
    } finally {
      jest.useRealTimers();
    }
  });
});
