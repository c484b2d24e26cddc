import type { DomainEvent, RecordedEvent, RecordedOf } from '../events';
import { isDomainEvent, streamCategory } from '../events';
import type { ReadModels } from './read-models';
import type { ExpiryRun } from './runs';

/**
 * A projection folds events into read models. `apply` must be idempotent:
 * applying an event a second time leaves the documents as they were (puts by
 * id, deletes by id), because engines without transactions may redeliver.
 *
 * Generic over the events it folds (usually one stream kind's union), so that
 * `apply` gets them narrowed. A projection declares its handling as an
 * exhaustive handler map (shared/events/handlers.ts) and derives `handles`
 * from it with `handledTypes`.
 */
export interface Projection<E extends DomainEvent = DomainEvent> {
  readonly name: string;
  /**
   * The version of what it writes (shared/read-models/layout.ts): raised when its collections'
   * fields or what their documents mean change, so that read models an older one wrote are
   * rebuilt from the log. Starts at 1.
   */
  readonly version: number;
  /** Event types this projection reacts to; others are never passed to it. */
  readonly handles: ReadonlySet<E['type']>;
  apply(event: RecordedOf<E>): Promise<void>;
  /**
   * Called with each whole batch (inside its transaction) before its events are
   * applied, so a projection can ask once for what many events will ask. What
   * it learns must not change what `apply` does, only how fast.
   */
  prepare?(batch: RecordedEvent[]): Promise<void>;
  /**
   * Called with each event of the log, before any projection applies it (whether or not this one
   * handles it): what the projections write next is as of its position (the history's versions).
   */
  begin?(event: RecordedEvent): void;
  /**
   * Applies a run of expiries at once (runs.ts: consecutive RoleAssignmentExpired events of one
   * environment, on resource instances), leaving the read models exactly as applying its events
   * one at a time, in order, would: what is versioned closed at each event's own position. Called
   * only when every projection that handles them accepted the run (`acceptsRun`).
   */
  applyRun?(run: ExpiryRun): Promise<void>;
  /**
   * Asked before any projection applies a run (after the events before it were applied): false
   * when this one could not apply it at once exactly as one at a time; the run's events are then
   * applied one at a time, as any others. Without it, a projection with `applyRun` takes every run.
   */
  acceptsRun?(run: ExpiryRun): Promise<boolean>;
  /**
   * Asked right after `apply` of an event whose type changes no check's answer by itself
   * (answer-changes.ts, an expiry), or `applyRun` of a run of them: whether applying it here
   * changed one all the same.
   */
  changedAnswers?(): boolean;
}

/**
 * Applies one event from the log to each projection that handles its type, in
 * order. The event is narrowed here, once, through the catalogue; a type the
 * catalogue does not declare is handled by none.
 *
 * (A Projection<EnvEvent> is a Projection here by method bivariance; the
 * `handles` gate, derived from its map, is what keeps other kinds from it.)
 */
export async function applyToProjections(projections: readonly Projection[], event: RecordedEvent): Promise<void> {
  if (!isDomainEvent(event)) return;
  for (const projection of projections) projection.begin?.(event);
  for (const projection of projections) if (projection.handles.has(event.type)) await projection.apply(event);
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

/** The fields every document an event creates in environment `ctx` starts with. */
export interface CreatedFields extends EnvContext {
  created_at: string;
  updated_at: string;
}

/**
 * The created fields of a document made at `at` in `ctx`, written out field by
 * field: the facts and schema projections make one per event, and
 * `{ ...ctx, created_at, updated_at }` is slow on Node 20 (shared/objects.ts).
 */
export function createdFields(ctx: EnvContext, at: string): CreatedFields {
  return {
    organization_id: ctx.organization_id,
    project_id: ctx.project_id,
    environment_id: ctx.environment_id,
    created_at: at,
    updated_at: at,
  };
}
