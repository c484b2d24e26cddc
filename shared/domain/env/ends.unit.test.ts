import { Ends } from './ends';
import { earliestDue } from './expiry-decisions';
import { envStateData, envStateOf, initialEnvState } from './state';

/** A seeded generator, so that a failure names a sequence that can be run again. */
function randomOf(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

const at = (second: number) => `2030-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

describe('Ends', () => {
  it('answers the ends due as a scan of a plain Map with the same writes would, through moves, deletes, keys set again and slices taken', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = randomOf(seed);
      const ends = new Ends();
      const plain = new Map<string, string>();
      const keys = Array.from({ length: 300 }, (_, i) => `a|k${i}`);
      let queries = 0;
      for (let step = 0; step < 6_000; step++) {
        const r = random();
        const key = keys[Math.floor(random() * keys.length)]!;
        if (r < 0.45) {
          // Few distinct instants: many ties, whose order is the map's.
          const end = at(Math.floor(random() * 12));
          ends.set(key, end);
          plain.set(key, end);
        } else if (r < 0.75) {
          expect(ends.delete(key)).toBe(plain.delete(key));
        } else if (r < 0.8) {
          // The end it has again: nothing changes, not even its place.
          const end = plain.get(key);
          if (end !== undefined) ends.set(key, end);
        } else {
          // A command's slice: expire what it takes, as the fold of its events does.
          const now = at(Math.floor(random() * 14));
          const limit = Math.floor(random() * 40);
          const due = ends.due(now, limit);
          expect(due).toEqual(earliestDue(plain, now, limit));
          queries += 1;
          if (random() < 0.7)
            for (const [taken] of due) {
              ends.delete(taken);
              plain.delete(taken);
            }
        }
        if (step % 500 === 0) expect([...ends]).toEqual([...plain]);
      }
      expect(queries).toBeGreaterThan(1_000);
      expect([...ends]).toEqual([...plain]);
      expect(ends.size).toBe(plain.size);
    }
  });

  it('takes a slice after another of one instant, each the next in the order the facts got their ends', () => {
    const ends = new Ends();
    for (let i = 0; i < 2_500; i++) ends.set(`a|${i}`, at(i % 2 === 0 ? 5 : 3));
    // Moved later, then back: it keeps its place among the ties, as a Map's set does.
    ends.set('a|1', at(9));
    ends.set('a|1', at(3));
    const taken: string[] = [];
    for (;;) {
      const due = ends.due(at(10), 1_000);
      for (const [key] of due) {
        taken.push(key);
        ends.delete(key);
      }
      if (due.length < 1_000) break;
    }
    const order = (i: number) => (i % 2 === 0 ? 1 : 0);
    const expected = Array.from({ length: 2_500 }, (_, i) => i)
      .sort((a, b) => order(a) - order(b) || a - b)
      .map((i) => `a|${i}`);
    expect(taken).toEqual(expected);
    expect(ends.size).toBe(0);
  });

  it('goes into a snapshot as a plain Map and comes back with the same ends in the same order', () => {
    const state = initialEnvState();
    expect(state.ends).toBeInstanceOf(Ends);
    state.ends.set('a|x', at(4));
    state.ends.set('t|y', at(2));
    state.ends.set('a|z', at(2));
    const data = envStateData(state);
    expect(data.ends).toBeInstanceOf(Map);
    expect(Object.getPrototypeOf(data.ends)).toBe(Map.prototype);
    const restored = envStateOf(structuredClone(data));
    expect(restored.ends).toBeInstanceOf(Ends);
    expect([...restored.ends]).toEqual([...state.ends]);
    expect((restored.ends as Ends).due(at(4), 10)).toEqual([
      ['t|y', at(2)],
      ['a|z', at(2)],
      ['a|x', at(4)],
    ]);
  });
});
