import type { Logger } from 'pino';
import type { Freshness } from '../command-service/http/services';
import { READ_MODELS_CHECKPOINT } from '../projection-service/runner';
import { PositionNotifier } from '../shared/read-models/position-notifier';
import type { DocumentStore } from '../shared/docstore/port';

export interface CheckpointFreshnessOptions {
  /** The projection runner's checkpoint. */
  checkpointName?: string;
  /** Poll period while some request waits for a position. */
  busyIntervalMs?: number;
  /** Poll period otherwise (keeps `position` and readiness current). */
  idleIntervalMs?: number;
}

/**
 * How fresh the read models are, for a process that does not run the
 * projections itself (the command service in distributed mode): one poller
 * per process reads the projection runner's checkpoint from the document
 * store, quickly while requests wait for their writes, slowly otherwise.
 * Waiting requests are entries in a PositionNotifier, never pollers of their own.
 */
export class CheckpointFreshness implements Freshness {
  private readonly notifier = new PositionNotifier();
  private readonly checkpointName: string;
  private readonly busyIntervalMs: number;
  private readonly idleIntervalMs: number;
  private waiters = 0;
  private reachable = false;
  private target = 0;
  private stopped = false;
  private kick: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly store: DocumentStore,
    private readonly logger: Logger,
    options: CheckpointFreshnessOptions = {},
  ) {
    this.checkpointName = options.checkpointName ?? READ_MODELS_CHECKPOINT;
    this.busyIntervalMs = options.busyIntervalMs ?? 20;
    this.idleIntervalMs = options.idleIntervalMs ?? 1000;
  }

  /** Reads the checkpoint once, then keeps polling in the background. */
  async start(): Promise<void> {
    await this.poll();
    this.loop = this.run();
  }

  get position(): number {
    return this.notifier.position;
  }

  /** The store answers and the read models reached the position set by `requireAtLeast`. */
  get ready(): boolean {
    return this.reachable && this.notifier.position >= this.target;
  }

  /** Readiness needs the read models at least this fresh (e.g. the log's head when the process started). */
  requireAtLeast(position: number): void {
    this.target = Math.max(this.target, position);
  }

  async waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    if (position <= this.notifier.position) return true;
    this.waiters++;
    this.kick?.();
    try {
      return await this.notifier.waitFor(position, timeoutMs);
    } finally {
      this.waiters--;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.kick?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.waiters > 0 ? this.busyIntervalMs : this.idleIntervalMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.kick = done;
      });
      this.kick = null;
      if (!this.stopped) await this.poll();
    }
  }

  private async poll(): Promise<void> {
    try {
      const checkpoint = await this.store.loadCheckpoint(this.checkpointName);
      if (!this.reachable) this.logger.info({ position: checkpoint ?? 0 }, 'read models reachable');
      this.reachable = true;
      this.notifier.advance(checkpoint ?? 0);
    } catch (error) {
      if (this.reachable) this.logger.warn({ err: error }, 'cannot read the projection checkpoint; retrying');
      this.reachable = false;
    }
  }
}
