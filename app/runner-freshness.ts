import type { ReadModelGroup } from '../command-service/http/read-model-groups';
import type { Freshness } from '../command-service/http/services';
import { ANSWERS } from '../shared/read-models/answer-changes';

/**
 * The projection that alone writes each group of read models (its `name`); for `answers`, the
 * runner's name for the last event that may have changed a check's answer.
 */
const PROJECTION_OF: Record<ReadModelGroup, string> = { organisation: 'org', schema: 'schema', answers: ANSWERS };

/** The projections whose `lastAppliedBy` runnerFreshness asks for. */
export const FRESHNESS_PROJECTIONS: string[] = Object.values(PROJECTION_OF);

/**
 * The projections of the one-process service as its composition root sees them: a
 * ProjectionRunner on the main thread, or a ProjectionThread running one on a thread of its own.
 */
export interface EmbeddedProjections {
  /** Position of the last event reflected in the read models. */
  readonly position: number;
  /** The read models reached the log's head as it was at start, and nothing failed. */
  readonly ready: boolean;
  /** The stored checkpoint the projections resumed from at their last start. */
  readonly startedFrom: number;
  waitForPosition(position: number, timeoutMs: number): Promise<boolean>;
  /** Position of the last event the projection `name` applied (see ProjectionRunner.lastAppliedBy). */
  lastAppliedBy(name: string): number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The one-process service's freshness: its projections (on this thread or their own), which also
 * know, exactly, when each group of read models last changed (Freshness.lastChangeOf), so the caches of
 * API keys, environment scopes and role permissions outlive the batches of facts, and the decision
 * cache the batches of expiries.
 */
export function runnerFreshness(runner: EmbeddedProjections): Freshness {
  return {
    exact: true,
    get position() {
      return runner.position;
    },
    get ready() {
      return runner.ready;
    },
    waitForPosition: (position, timeoutMs) => runner.waitForPosition(position, timeoutMs),
    lastChangeOf: (group: ReadModelGroup) => runner.lastAppliedBy(PROJECTION_OF[group]),
  };
}
