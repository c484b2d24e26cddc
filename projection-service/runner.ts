import type { Logger } from 'pino';
import type { DocumentStore } from '../shared/docstore/port';
import type { RecordedEvent } from '../shared/events/envelope';
import type { EventStore, Subscription } from '../shared/eventstore/port';
import { applyToProjections, type Projection } from '../shared/read-models/projection';
import { PositionNotifier } from '../shared/read-models/position-notifier';

export interface ProjectionRunnerOptions {
  /** Name of the stored checkpoint. */
  checkpointName?: string;
  batchSize?: number;
}

/**
 * Subscribes to the log from the stored checkpoint and applies each batch of
 * events to every projection that handles them. Where the document store is
 * transactional (SQLite), the batch and the checkpoint commit together, so a
 * crash never leaves them apart; elsewhere the checkpoint is saved after the
 * batch, and the idempotent projections absorb the replay after a crash.
 */
export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private checkpoint: number | null = null;
  private readonly notifier = new PositionNotifier();
  private startHead = 0;
  private resumedFrom = 0;
  private failed: unknown = null;
  private readonly checkpointName: string;
  /** `position` moves in this process right after each batch commits (Freshness.exact). */
  readonly exact = true;

  constructor(
    private readonly events: EventStore,
    private readonly store: DocumentStore,
    private readonly projections: Projection[],
    private readonly logger: Logger,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.checkpointName = options.checkpointName ?? 'read-models';
  }

  async start(): Promise<void> {
    this.checkpoint = await this.store.loadCheckpoint(this.checkpointName);
    this.startHead = await this.events.headPosition();
    const from = this.checkpoint ?? 0;
    this.resumedFrom = from;
    this.notifier.advance(from);
    this.logger.info({ from, head: this.startHead }, 'projections starting');
    this.subscription = this.events.subscribe(
      {
        fromPosition: from,
        batchSize: this.options.batchSize ?? 1000,
        onError: (error) => {
          this.logger.error({ err: error }, 'projection subscription error');
        },
      },
      (batch) => this.applyBatch(batch),
    );
  }

  /** The stored checkpoint this runner resumed from at start (0: from the beginning). */
  get startedFrom(): number {
    return this.resumedFrom;
  }

  /** Why the projections stopped (a batch failed), or null while they run. */
  get failure(): unknown {
    return this.failed;
  }

  /** Position of the last event reflected in the read models. */
  get position(): number {
    return this.notifier.position;
  }

  /** True once the read models reached the log's head as it was at start, and nothing failed. */
  get ready(): boolean {
    return this.failed === null && this.subscription !== null && this.notifier.position >= this.startHead;
  }

  /** Resolves true once the read models reflect `position`, false after `timeoutMs`. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    return this.notifier.waitFor(position, timeoutMs);
  }

  private async applyBatch(batch: RecordedEvent[]): Promise<void> {
    const last = batch.at(-1)!.position;
    try {
      await this.store.transaction(async () => {
        for (const projection of this.projections) await projection.prepare?.(batch);
        for (const event of batch) await applyToProjections(this.projections, event);
        const saved = await this.store.saveCheckpoint(this.checkpointName, this.checkpoint, last);
        if (!saved.ok) {
          throw new Error(`checkpoint ${this.checkpointName} moved to ${saved.current} under us (another projection runner?)`);
        }
      });
    } catch (error) {
      this.failed = error;
      this.logger.error({ err: error, position: batch[0]!.position }, 'projection batch failed; projections stopped');
      throw error;
    }
    this.checkpoint = last;
    this.notifier.advance(last);
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }
}
