import type { Logger } from 'pino';
import type { DocumentStore } from '../docstore/port';

/**
 * The layout of the read models: what the projections of this release write, and how. A release
 * that changes it (a collection's fields or what its documents mean) raises it, and the first start
 * on read models of an older layout rebuilds them from the log instead of migrating them in code.
 *
 * 2: the history keeps only closed versions; a current document carries `_from` (history/versions.ts).
 * 3: role assignments, relationship tuples and derived grants carry `expires_at` (docs/expiring-access.md).
 */
export const READ_MODELS_LAYOUT = 3;

/** The checkpoint row the layout is kept in (with the consumers' positions, so a rebuild empties it too). */
export const LAYOUT_CHECKPOINT = 'read-models-layout';

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

/**
 * Makes the read models in `store` be of this release's layout: read models that some projection
 * wrote (`checkpoint`, the runner's, is set) under an older layout, or under none (before layouts
 * were recorded), are emptied, with every checkpoint but those above, so that the runner
 * replays the log from its start; then the layout is recorded. True when it emptied them.
 * Read models of a newer layout are refused: this release would write them wrongly. Run it in a
 * transaction of `store` (the runner does): on SQLite the emptying and the new layout commit together.
 */
export async function ensureLayout(store: DocumentStore, checkpoint: string, logger: Logger): Promise<boolean> {
  const layout = await store.loadCheckpoint(LAYOUT_CHECKPOINT);
  if (layout === READ_MODELS_LAYOUT) return false;
  if (layout !== null && layout > READ_MODELS_LAYOUT) {
    throw new Error(`the read models are of layout ${layout}, newer than this release's (${READ_MODELS_LAYOUT}): run a newer release`);
  }
  const position = await store.loadCheckpoint(checkpoint);
  const rebuild = position !== null;
  if (rebuild) {
    logger.warn(
      { layout: layout ?? 1, expected: READ_MODELS_LAYOUT, position },
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
  const saved = await store.saveCheckpoint(LAYOUT_CHECKPOINT, rebuild ? null : layout, READ_MODELS_LAYOUT);
  if (!saved.ok && saved.current !== READ_MODELS_LAYOUT) throw new Error(`the read models' layout moved to ${saved.current} under us`);
  return rebuild;
}
