import type { Logger } from 'pino';
import type { DocumentStore } from '../docstore/port';

/**
 * The layout of the read models: what the projections of this release write, and how. It has two
 * parts, and read models that an older release wrote in another layout are rebuilt from the log
 * (emptied, then replayed from its start, with progress in the log) instead of migrated in code:
 *
 * - the store-wide layout, READ_MODELS_LAYOUT, for what every collection shares: raise it when
 *   that changes (2: the history keeps only closed versions; a current document carries `_from`,
 *   history/versions.ts);
 * - each projection's `version` (Projection.version), for what that projection writes: raise it
 *   when its collections' fields or what their documents mean change. A projection that no
 *   recorded version names (new in this release) rebuilds them too, so that it sees the whole log.
 *
 * Every projection is rebuilt when one changes, not just that one: projections read each other's
 * read models while they apply (the derived grants read the facts' tuples, the history the current
 * documents), so one replayed alone would read them as they are now, not as they were at its events.
 */
export const READ_MODELS_LAYOUT = 2;

/** The checkpoint row the store-wide layout is kept in (with the consumers' positions, so a rebuild empties it too). */
export const LAYOUT_CHECKPOINT = 'read-models-layout';

/** The checkpoint row a projection's version is kept in. */
export const projectionVersionCheckpoint = (projection: string): string => `projection-version:${projection}`;

/**
 * The projections of the release that introduced the store-wide layout 2, which recorded no
 * projection versions: read models of layout 2 without them were written by these, at version 1.
 */
const PROJECTIONS_OF_LAYOUT_2 = new Set(['org', 'schema', 'facts', 'tasks', 'derived-grants', 'history', 'audit-log']);

/**
 * The task relay's checkpoint (task-service/relay.ts), in the read models' store: what it marks
 * happened outside the store (tasks handed to the queue), so a rebuild keeps it.
 */
export const TASK_RELAY_CHECKPOINT = 'task-relay';

/**
 * The seed of the bootstrap's ids (command-service/bootstrap.ts), in the read models' store: a
 * command service that finds no organisation in read models being rebuilt tries the bootstrap
 * again, and with the same seed it names the organisation the log has, so the log refuses it.
 */
export const BOOTSTRAP_SEED_CHECKPOINT = 'bootstrap-seed';

/** Checkpoint rows that are not read models' positions, kept across a rebuild. */
const KEPT_ACROSS_REBUILD = [TASK_RELAY_CHECKPOINT, BOOTSTRAP_SEED_CHECKPOINT];

/** A projection as the layout knows it. */
export interface VersionedProjection {
  readonly name: string;
  readonly version: number;
}

/** A projection whose recorded version is not this release's (null: none recorded). */
interface ChangedProjection {
  projection: string;
  recorded: number | null;
  version: number;
}

/**
 * Makes the read models in `store` be of this release's layout, for `projections` (the runner's):
 * read models that some projection wrote (`checkpoint`, the runner's, is set) under an older
 * store-wide layout (or none, before layouts were recorded), or with a projection of another
 * version (or none recorded), are emptied, with every checkpoint but those above, so that the
 * runner replays the log from its start; then the layout and versions are recorded. True when it
 * emptied them. Read models of a newer store-wide layout are refused: this release would write
 * them wrongly. Run it in a transaction of `store` (the runner does): on SQLite the emptying and
 * the new layout commit together.
 */
export async function ensureLayout(
  store: DocumentStore,
  checkpoint: string,
  projections: readonly VersionedProjection[],
  logger: Logger,
): Promise<boolean> {
  const layout = await store.loadCheckpoint(LAYOUT_CHECKPOINT);
  if (layout !== null && layout > READ_MODELS_LAYOUT) {
    throw new Error(`the read models are of layout ${layout}, newer than this release's (${READ_MODELS_LAYOUT}): run a newer release`);
  }
  const recorded = new Map<string, number | null>();
  for (const { name } of projections) recorded.set(name, await recordedVersion(store, name, layout));
  const changed: ChangedProjection[] = projections
    .filter(({ name, version }) => recorded.get(name) !== version)
    .map(({ name, version }) => ({ projection: name, recorded: recorded.get(name) ?? null, version }));
  if (layout === READ_MODELS_LAYOUT && changed.length === 0) return false;

  const position = await store.loadCheckpoint(checkpoint);
  const rebuild = position !== null;
  if (rebuild) {
    logger.warn(
      { layout: layout ?? 1, expected: READ_MODELS_LAYOUT, changed, position },
      'read models of an older layout: emptying them to rebuild them from the log',
    );
    const kept: Array<[string, number]> = [];
    for (const name of KEPT_ACROSS_REBUILD) {
      const at = await store.loadCheckpoint(name);
      if (at !== null) kept.push([name, at]);
    }
    await store.dropAll();
    for (const [name, at] of kept) await store.saveCheckpoint(name, null, at);
  }
  await record(store, LAYOUT_CHECKPOINT, rebuild ? null : layout, READ_MODELS_LAYOUT);
  for (const { name, version } of projections) {
    // What is stored: nothing after a rebuild, else the row as read (not the version inferred for layout 2).
    const stored = rebuild ? null : await store.loadCheckpoint(projectionVersionCheckpoint(name));
    if (stored !== version) await record(store, projectionVersionCheckpoint(name), stored, version);
  }
  return rebuild;
}

/** The version of `projection` that wrote the read models (null: none did, or it is not known which). */
async function recordedVersion(store: DocumentStore, projection: string, layout: number | null): Promise<number | null> {
  const version = await store.loadCheckpoint(projectionVersionCheckpoint(projection));
  if (version !== null) return version;
  return layout === 2 && PROJECTIONS_OF_LAYOUT_2.has(projection) ? 1 : null;
}

async function record(store: DocumentStore, name: string, expected: number | null, next: number): Promise<void> {
  const saved = await store.saveCheckpoint(name, expected, next);
  if (!saved.ok && saved.current !== next) throw new Error(`the read models' ${name} moved to ${saved.current} under us`);
}
