import type { RecordedEvent } from '../events/envelope';
import { streamCategory } from '../events/envelope';
import type { ReadModels } from './read-models';

/**
 * A projection folds events into read models. `apply` must be idempotent:
 * applying an event a second time leaves the documents as they were (puts by
 * id, deletes by id), because engines without transactions may redeliver.
 */
export interface Projection {
  readonly name: string;
  /** Event types this projection reacts to; others are never passed to it. */
  readonly handles: ReadonlySet<string>;
  apply(event: RecordedEvent): Promise<void>;
  /**
   * Called with each whole batch (inside its transaction) before its events are
   * applied, so a projection can ask once for what many events will ask. What
   * it learns must not change what `apply` does, only how fast.
   */
  prepare?(batch: RecordedEvent[]): Promise<void>;
}

export interface EnvContext {
  organization_id: string;
  project_id: string;
  environment_id: string;
}

/** Resolves the organisation and project of an environment stream, cached (they never change). */
export class EnvContextCache {
  private readonly cache = new Map<string, EnvContext>();
  constructor(private readonly rm: ReadModels) {}

  async of(event: RecordedEvent): Promise<EnvContext> {
    const { id: environmentId } = streamCategory(event.streamId);
    const cached = this.cache.get(environmentId);
    if (cached) return cached;
    const env = await this.rm.environments.get(environmentId);
    const context = { organization_id: env?.organization_id ?? '', project_id: env?.project_id ?? '', environment_id: environmentId };
    if (env) this.cache.set(environmentId, context);
    return context;
  }
}
