import type { Logger } from 'pino';
import type { DocumentStore } from '../shared/docstore/port';
import type { RecordedEvent } from '../shared/events/envelope';
import type { EventStore, Subscription } from '../shared/eventstore/port';
import { applyToProjections, type Projection } from '../shared/read-models/projection';
import { ANSWERS, answersCheckpoint, mayChangeAnswers } from '../shared/read-models/answer-changes';
import { ensureLayout } from '../shared/read-models/layout';
import { PositionNotifier } from '../shared/read-models/position-notifier';
import { applyRun, runAccepted, stepsOf, type ExpiryRun } from '../shared/read-models/runs';
import { sleep } from '../shared/sleep';
import { Yielder } from './yielder';
import { inSpanForCarriers } from '../shared/tracing/spans';

export interface ProjectionRunnerOptions {
  /** Name of the stored checkpoint. */
  checkpointName?: string;
  /** Events per batch (one transaction) once the read models reached the log's head as it was at start, while they keep up. */
  batchSize?: number;
  /**
   * Events per batch while replaying the log that was there at start (a
   * rebuild, a restart after downtime), and while the log is ahead of the read
   * models (the last batch came back full: a bulk import, a copy). One
   * transaction per batch costs CPU per event (its COMMIT, the projections'
   * per-batch reads), which larger batches share among more events (docs/bench-history/
   * design-choices.md). A write waiting behind a backlog waits for the backlog anyway; a
   * write that is not, gets a steady batch.
   */
  catchUpBatchSize?: number;
  /**
   * false: every event applied one at a time, runs of expiries too (shared/read-models/runs.ts); by
   * default a run is applied at once where every projection accepts it. Tests compare the two.
   */
  expiryRuns?: boolean;
  /** Told each batch's last position once it committed, after `position` moved (a projection thread tells the API's). */
  onCommitted?: (position: number) => void;
  /** Told once the runner stops for good (`failure`: another runner moved the checkpoint), with the reason. */
  onFailed?: (error: unknown) => void;
}

/** The runner's checkpoint unless told otherwise: what processes that follow the read models read (app/*-freshness.ts). */
export const READ_MODELS_CHECKPOINT = 'read-models';

/** Events between two lines of a replay's progress in the log. */
const REPLAY_LOG_EVERY = 100_000;

/** Steady-state batch: a write is visible once its batch commits, so a batch is not much longer than the writes waiting. */
const BATCH_SIZE = 1000;
/** Catch-up batch: less CPU per event than the steady batch, and larger ones gained nothing more (docs/bench-history/design-choices.md). */
const CATCH_UP_BATCH_SIZE = 5000;

/**
 * Subscribes to the log from the stored checkpoint and applies each batch of
 * events to every projection that handles them. Where the document store is
 * transactional (SQLite), the batch and the checkpoint commit together, so a
 * crash never leaves them apart; elsewhere the checkpoint is saved after the
 * batch, and the idempotent projections absorb the replay after a crash.
 *
 * A batch that fails (e.g. the document store went away) is applied again,
 * whole, after a backoff (100 ms doubling to 5 s) until it succeeds: on SQLite
 * it was rolled back, elsewhere its replay overwrites what part of it was
 * written, and the projections drop their caches when positions go back. Only
 * a checkpoint moved by someone else (a second runner) stops the runner for
 * good (`failure`).
 */
export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private checkpoint: number | null = null;
  private readonly notifier = new PositionNotifier();
  private startHead = 0;
  private resumedFrom = 0;
  private failed: unknown = null;
  /** Failures in a row of the batch being applied (0: none). */
  private failures = 0;
  /** Aborted by stop(): a batch waiting to be retried gives up. */
  private stopping = new AbortController();
  private readonly checkpointName: string;
  /** Position of the last event each projection applied, by projection name (see lastAppliedBy). */
  private readonly lastApplied = new Map<string, number>();
  /** Position of the last event that may have changed a check's answer, as stored (see lastAppliedBy(ANSWERS)). */
  private answersChangedAt: number | null = null;
  /** The last read of the log asked for: events after `after`, at most `size` (see nextBatchSize). */
  private read = { after: -1, size: 0 };
  /** The last batch past the start head came back as large as asked: the log is ahead of the read models. */
  private behind = false;
  /** The replay of the log that was there at start, while it runs: where it began, when, and the last position logged. */
  private replay: { from: number; startedAt: number; logged: number } | null = null;
  /** `position` moves in this process right after each batch commits (Freshness.exact). */
  readonly exact = true;

  /** The read models' writer view: batches are its transactions (the projections must write through it too). */
  private readonly store: DocumentStore;

  /** `projections` read and write through `store.writerView()` (a ReadModels on it); see DocumentStore.writerView. */
  constructor(
    private readonly events: EventStore,
    store: DocumentStore,
    private readonly projections: Projection[],
    private readonly logger: Logger,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.store = store.writerView();
    this.checkpointName = options.checkpointName ?? READ_MODELS_CHECKPOINT;
    for (const key of ['batchSize', 'catchUpBatchSize'] as const) {
      const size = options[key];
      if (size !== undefined && !(Number.isInteger(size) && size > 0)) throw new Error(`${key} must be a positive integer, not ${size}`);
    }
  }

  async start(): Promise<void> {
    this.stopping = new AbortController();
    // Read models an older release wrote in another layout are emptied here, and replayed below from the log's start.
    await this.store.transaction(() => ensureLayout(this.store, this.checkpointName, this.projections, this.logger));
    this.checkpoint = await this.store.loadCheckpoint(this.checkpointName);
    this.answersChangedAt = await this.store.loadCheckpoint(answersCheckpoint(this.checkpointName));
    this.startHead = await this.events.headPosition();
    this.read = { after: -1, size: 0 };
    this.behind = false;
    const from = this.checkpoint ?? 0;
    this.resumedFrom = from;
    this.notifier.advance(from);
    this.logger.info({ from, head: this.startHead }, 'projections starting');
    this.replay = from < this.startHead ? { from, startedAt: Date.now(), logged: from } : null;
    this.subscription = this.events.subscribe(
      {
        fromPosition: from,
        // Asked before each read: large batches while the log as it was at start is replayed (up to its head, or a
        // steady batch, and no further), then the steady size, or the large one again while the log is ahead.
        batchSize: (after) => this.nextBatchSize(after),
        onError: (error) => {
          if (!this.stopping.signal.aborted) this.logger.error({ err: error }, 'projection subscription error');
        },
      },
      (batch) => this.applyBatch(batch),
    );
  }

  /** The size of the next read of the log, after `after`. */
  private nextBatchSize(after: number): number {
    const steady = this.options.batchSize ?? BATCH_SIZE;
    const catchUp = this.options.catchUpBatchSize ?? Math.max(CATCH_UP_BATCH_SIZE, steady);
    // Asked again from the same place: the last read found nothing, so the read models are level with the log.
    if (after === this.read.after) this.behind = false;
    this.read = {
      after,
      size: after < this.startHead ? Math.min(catchUp, Math.max(steady, this.startHead - after)) : this.behind ? catchUp : steady,
    };
    return this.read.size;
  }

  /** The stored checkpoint this runner resumed from at start (0: from the beginning). */
  get startedFrom(): number {
    return this.resumedFrom;
  }

  /** Why the projections stopped for good (another runner moved the checkpoint), or null while they run. */
  get failure(): unknown {
    return this.failed;
  }

  /** How many times in a row the batch being applied has failed (0 while batches succeed). */
  get failingAttempts(): number {
    return this.failures;
  }

  /** Position of the last event reflected in the read models. */
  get position(): number {
    return this.notifier.position;
  }

  /** True once the read models reached the log's head as it was at start, and nothing failed. */
  get ready(): boolean {
    return this.failed === null && this.subscription !== null && this.notifier.position >= this.startHead;
  }

  /**
   * Position of the last event the projection `name` applied in this process, or where the runner
   * resumed if none yet (what it wrote before is older still). Moves right after the batch commits,
   * with `position`: a cache of answers read only from that projection's read models stays exact when
   * keyed by it, and survives the batches that do not touch them (app/runner-freshness.ts).
   * `ANSWERS` (answer-changes.ts): the last event that may have changed a check's answer.
   */
  lastAppliedBy(name: string): number {
    if (name === ANSWERS) return this.answersChangedAt ?? this.resumedFrom;
    return this.lastApplied.get(name) ?? this.resumedFrom;
  }

  /** Resolves true once the read models reflect `position`, false after `timeoutMs`. */
  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    return this.notifier.waitFor(position, timeoutMs);
  }

  /** A batch is traced in the trace of the first traced write it makes visible, linked to the others' (docs/tracing.md). */
  private applyBatch(batch: RecordedEvent[]): Promise<void> {
    return inSpanForCarriers(
      'projection batch',
      batch.map((event) => event.metadata),
      () => ({ 'rebac.events': batch.length, 'rebac.first_position': batch[0]!.position, 'rebac.last_position': batch.at(-1)!.position }),
      () => this.applyBatchUntraced(batch),
    );
  }

  private async applyBatchUntraced(batch: RecordedEvent[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.applyOnce(batch, attempt > 1);
        break;
      } catch (error) {
        if (this.stopping.signal.aborted) throw error;
        if (error instanceof CheckpointMovedError) {
          this.failed = error;
          this.logger.error({ err: error, position: batch[0]!.position }, 'projection batch failed; projections stopped');
          this.options.onFailed?.(error);
          throw error;
        }
        this.failures = attempt;
        const retryInMs = Math.min(100 * 2 ** (attempt - 1), 5000);
        this.logger.error({ err: error, position: batch[0]!.position, attempt, retryInMs }, 'projection batch failed; applying it again');
        await sleep(retryInMs, this.stopping.signal);
        // Stopped meanwhile: the subscription ends here; the checkpoint stays before this batch.
        if (this.stopping.signal.aborted) throw error;
      }
    }
    if (this.failures > 0) this.logger.info({ position: batch.at(-1)!.position, attempts: this.failures + 1 }, 'projection batch applied');
    this.failures = 0;
  }

  /** The batch's events, runs of expiries together (runs.ts) unless the options say one at a time. */
  private stepsOf(batch: RecordedEvent[]): Iterable<{ run: ExpiryRun } | { event: RecordedEvent }> {
    return this.options.expiryRuns === false ? batch.map((event) => ({ event })) : stepsOf(batch);
  }

  /** `again`: an earlier attempt failed, possibly after its checkpoint save landed (its answer lost on the way). */
  private async applyOnce(batch: RecordedEvent[], again: boolean): Promise<void> {
    const last = batch.at(-1)!.position;
    const yielder = new Yielder();
    let answersChanged: number | null = null;
    await this.store.transaction(async () => {
      for (const projection of this.projections) await projection.prepare?.(batch);
      for (const step of this.stepsOf(batch)) {
        if ('run' in step && (await runAccepted(this.projections, step.run))) {
          await applyRun(this.projections, step.run);
          // The last event of the run stands for all of it (an answer changed by any of them changed by then).
          const last = step.run.at(-1)!;
          if (mayChangeAnswers(last, this.projections)) answersChanged = last.position;
          await yielder.maybeYield();
          continue;
        }
        for (const event of 'run' in step ? step.run : [step.event]) {
          await applyToProjections(this.projections, event);
          if (mayChangeAnswers(event, this.projections)) answersChanged = event.position;
          // A batch takes a millisecond or more per 10 events at scale: requests get their turn meanwhile
          // (they read the last committed batch; writes from elsewhere wait for this one, see the store).
          await yielder.maybeYield();
        }
      }
      if (answersChanged !== null) await this.saveAnswersChanged(answersChanged, again);
      const saved = await this.store.saveCheckpoint(this.checkpointName, this.checkpoint, last);
      if (!saved.ok && !(again && saved.current === last)) throw new CheckpointMovedError(this.checkpointName, saved.current);
    });
    this.checkpoint = last;
    if (answersChanged !== null) this.answersChangedAt = answersChanged;
    this.behind = this.read.after >= this.startHead && batch.length >= this.read.size;
    this.noteAppliedBy(batch);
    this.logReplay(last);
    this.notifier.advance(last);
    this.options.onCommitted?.(last);
  }

  /**
   * The replay's progress (a rebuild replays the whole log): every REPLAY_LOG_EVERY events, and once
   * it reached the log's head as it was at start.
   */
  private logReplay(position: number): void {
    const replay = this.replay;
    if (!replay) return;
    const done = position >= this.startHead;
    if (!done && position - replay.logged < REPLAY_LOG_EVERY) return;
    replay.logged = position;
    const seconds = (Date.now() - replay.startedAt) / 1000;
    const events = position - replay.from;
    const perSecond = seconds > 0 ? Math.round(events / seconds) : null;
    if (done) {
      this.replay = null;
      this.logger.info({ from: replay.from, head: this.startHead, events, seconds, perSecond }, 'projections replayed the log');
    } else this.logger.info({ position, head: this.startHead, events, seconds, perSecond }, 'projections replaying the log');
  }

  /**
   * Stores where answers last changed, in the batch's transaction, for the processes that read these
   * read models (a check worker's decision cache, app/replica-freshness.ts). A retry may find its
   * own earlier save (its answer lost on the way), as with the checkpoint.
   */
  private async saveAnswersChanged(position: number, again: boolean): Promise<void> {
    const name = answersCheckpoint(this.checkpointName);
    const saved = await this.store.saveCheckpoint(name, this.answersChangedAt, position);
    if (!saved.ok && !(again && saved.current === position)) throw new CheckpointMovedError(name, saved.current);
  }

  /** After a batch committed: which projections it moved (lastAppliedBy). */
  private noteAppliedBy(batch: RecordedEvent[]): void {
    for (const projection of this.projections) {
      const handles = projection.handles as ReadonlySet<string>;
      for (let i = batch.length - 1; i >= 0; i--) {
        const event = batch[i]!;
        if (handles.has(event.type)) {
          this.lastApplied.set(projection.name, event.position);
          break;
        }
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.subscription?.stop();
    this.subscription = null;
  }
}

/** The stored checkpoint is not where this runner left it: another runner is writing the same read models. */
class CheckpointMovedError extends Error {
  constructor(name: string, current: number | null) {
    super(`checkpoint ${name} moved to ${current} under us (another projection runner?)`);
    this.name = 'CheckpointMovedError';
  }
}
