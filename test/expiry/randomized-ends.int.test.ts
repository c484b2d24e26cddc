import { randomSequenceWithEnds } from './support/random-ends';

/**
 * The random sequence of test/grants/randomized.int.test.ts with ends (docs/expiring-access.md):
 * assignments and tuples written with an end or none, ends moved and removed, expiry commands as the
 * scheduler sends them, and the clock moving on. After each batch, the grants in force at every
 * instant that matters (now, each end and the millisecond before it) are compared with a naive
 * recomputation from the facts in force then: the stored end of each grant must be exact (before it
 * some support holds, from it none does).
 */
describe('derived grants with ends under a random sequence', () => {
  for (const seed of [11, 2024, 5]) {
    it(`matches the reference at every instant that matters (seed ${seed}), and a rebuild from the log`, () =>
      randomSequenceWithEnds(seed));
  }
});
