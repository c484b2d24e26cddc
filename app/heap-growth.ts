import { setFlagsFromString } from 'node:v8';

/**
 * Sets how far a V8 heap may grow past what its last full collection kept before the next full
 * collection: HEAP_GROWTH_PERCENT (0: V8's own policy).
 *
 * V8's own policy, on a machine with gigabytes of memory, lets a heap reach up to four times what
 * it kept. The service allocates mostly request-sized garbage that lives across a few young
 * collections (a bulk request's body, commands and events, held until the read models show them),
 * so it is promoted and dies in the old generation: under a bulk load the main thread's heap
 * filled with it to about three times the command state it holds, and the process's peak memory
 * during the load stood well above its memory once loaded (docs/benchmarks.md, "Memory and cold
 * start"). With a bound the old generation is collected sooner and more often; each collection
 * traces only what is live, so the extra collections cost little time beside the requests.
 *
 * A V8 flag is the process's, not one heap's: set before the threads start, it holds for every
 * thread's heap (the projection thread's, the log writer's).
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
