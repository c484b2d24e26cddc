import type { ReadModelGroup } from '../command-service/http/read-model-groups';
import type { Freshness } from '../command-service/http/services';
import { READ_MODELS_CHECKPOINT } from '../projection-service/runner';
import type { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { answersCheckpoint } from '../shared/read-models/answer-changes';

/** How often a request that waits for a position (`X-Min-Event-Position`, `as_of` ahead of the read models) looks again. */
const POLL_MS = 2;

/**
 * How fresh the read models are, for a check worker (app/check-worker.ts) reading another
 * process's SQLite read models through a replica: the position is the projection checkpoint in
 * the snapshot this turn's reads see, so caches kept per position are exact (Freshness.exact),
 * however the writing process's commits fall between requests.
 */
export class ReplicaFreshness implements Freshness {
  readonly exact = true;
  readonly ready = true;

  constructor(
    private readonly replica: SqliteDocumentStore,
    private readonly checkpointName = READ_MODELS_CHECKPOINT,
  ) {}

  get position(): number {
    return this.replica.snapshotCheckpoint(this.checkpointName) ?? 0;
  }

  /**
   * `answers`: where the writing process's runner stored that answers last changed, in the same
   * snapshot as `position` (until it stored one, `position`). Other groups: `position`, as the
   * writing process tells no one when they changed.
   */
  lastChangeOf(group: ReadModelGroup): number {
    if (group !== 'answers') return this.position;
    return this.replica.snapshotCheckpoint(answersCheckpoint(this.checkpointName)) ?? this.position;
  }

  async waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    // Each look is a new turn of the event loop, hence a new snapshot.
    while (this.position < position) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return true;
  }
}
