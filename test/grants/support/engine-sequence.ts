import type { DocumentStore } from '../../../shared/docstore/port';
import { GrantsHarness } from './harness';
import { Random } from './random';
import { createWorldSchema, randomCommand } from './random-world';
import { grantKeys, recomputeGrants, unsoundReasons } from './reference';

/**
 * The grants projection on `store`, a read-model engine other than SQLite's (the MongoDB and
 * PostgreSQL e2e files run it), through the port only: a random sequence of commands, the stored
 * grants compared with a from-scratch recomputation every 25 steps. A shorter form of the SQLite
 * int test's sequence (randomized.int.test.ts), whose other checks are the engine's in the int tests.
 */
export async function grantsMatchRecomputation(store: DocumentStore): Promise<void> {
  const h = await new GrantsHarness(store).start();
  try {
    await createWorldSchema(h);
    const r = new Random(42);
    for (let step = 0; step < 150; step++) {
      await h.exec(randomCommand(r, await h.state()));
      if (step % 25 === 24) {
        await h.settle();
        const state = await h.state();
        const grants = await h.read.allGrants();
        expect({ step, grants: grantKeys(grants) }).toEqual({ step, grants: recomputeGrants(state) });
        expect(unsoundReasons(grants, state)).toEqual([]);
      }
    }
  } finally {
    await h.close();
  }
}
