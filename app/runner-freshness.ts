import type { ReadModelGroup } from '../command-service/http/read-model-groups';
import type { Freshness } from '../command-service/http/services';
import type { ProjectionRunner } from '../projection-service/runner';

/** The projection that alone writes each group of read models (its `name`). */
const PROJECTION_OF: Record<ReadModelGroup, string> = { organisation: 'org', schema: 'schema' };

/**
 * The one-process service's freshness: the projection runner in this process, which also knows,
 * exactly, when each group of read models last changed (Freshness.lastChangeOf), so the caches of
 * API keys, environment scopes and role permissions outlive the batches of facts.
 */
export function runnerFreshness(runner: ProjectionRunner): Freshness {
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
