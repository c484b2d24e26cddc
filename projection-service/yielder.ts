import { setImmediate as nextTick } from 'node:timers/promises';

/**
 * Lets a long projection step give the event loop back (to HTTP checks) once it
 * has run for `sliceMs`. Yielding on a time budget rather than per chunk keeps
 * small events (the common case) free of the extra turn of the loop.
 */
export class Yielder {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = 8) {}

  async maybeYield(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await nextTick();
    this.sliceStart = performance.now();
  }
}
