import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../shared/config';
import type { AppendObserver } from '../shared/eventstore/port';
import { PositionNotifier } from '../shared/read-models/position-notifier';
import { hasRegisteredProjections } from './feature-registry';
import type { Feature } from './feature';
import type { EmbeddedProjections } from './runner-freshness';
import {
  positionsBytes,
  relayLogLine,
  type FromProjectionThread,
  type ProjectionThreadData,
  type ToProjectionThread,
} from './projection-thread-messages';

/** Whether the one-process service runs its projections on a thread of their own (PROJECTION_THREAD). */
export function projectionThreadWanted(config: Config): boolean {
  if (config.PROJECTION_THREAD !== 'auto') return config.PROJECTION_THREAD === 'true';
  return config.EVENT_STORE === 'sqlite' && config.READ_MODEL_STORE === 'sqlite' && availableParallelism() > 1;
}

/** How long the thread may take to open its stores and start its subscription. */
const START_TIMEOUT_MS = 60_000;
/**
 * The thread's young generation, larger than Node's default. A projection batch allocates its
 * events, documents and rows all at once: in the default's space they outlived scavenges and were
 * promoted, and a copy's projections spent much of their time in GC; in this one they die young
 * (docs/bench-history/design-choices.md).
 */
const THREAD_YOUNG_GENERATION_MB = 64;
/** Pause before a thread that died or failed is started again (a crash loop must not spin). */
const RESTART_DELAY_MS = 1_000;

/**
 * The projections on a thread of their own, so that on a machine with two cores or more the
 * writes' HTTP, decisions and appends (this thread) and the projections of the writes before
 * them (the other) run at the same time. The thread has its own connections to the SQLite files
 * (app/projection-thread-worker.ts); this thread reads the read models through its own.
 *
 * Exact like the runner on this thread (Freshness.exact): after each batch commits, the thread
 * writes the new positions in shared memory, which `position` and `lastAppliedBy` read, then
 * posts a message, which wakes the writes waiting for them. A read that sees a position sees the
 * store at that position or later, and a cached answer is never kept across a batch it did not see
 * (ReadCache checks the position before and after computing it).
 *
 * A thread that dies, or whose runner fails for good, is started again after a second; it resumes
 * from the checkpoint its last batch committed.
 */
export class ProjectionThread implements EmbeddedProjections {
  private readonly notifier = new PositionNotifier();
  /** The features whose projections the thread builds (by name: functions do not cross threads). */
  private readonly features: string[];
  private readonly shared: SharedArrayBuffer;
  private readonly slots: BigInt64Array;
  private worker: Worker | null = null;
  private startHead = 0;
  private resumedFrom = 0;
  private running = false;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly config: Config,
    features: Feature[],
    private readonly logger: Logger,
    /** The log's head now (the thread is ready once the read models reach it). */
    private readonly headPosition: () => Promise<number>,
    /** Projections whose lastAppliedBy this thread is asked for (the others throw). */
    private readonly tracked: string[],
  ) {
    this.features = threadFeatures(features);
    this.shared = new SharedArrayBuffer(positionsBytes(tracked));
    this.slots = new BigInt64Array(this.shared);
  }

  /** Tells the thread of this thread's appends (pass it as the event store's observer). */
  appendObserver(metrics: AppendObserver): AppendObserver {
    return {
      appended: (seconds) => metrics.appended(seconds),
      committed: (appends, events) => {
        metrics.committed(appends, events);
        this.worker?.postMessage('appended' satisfies ToProjectionThread);
      },
    };
  }

  get position(): number {
    return Number(Atomics.load(this.slots, 0));
  }

  get ready(): boolean {
    return this.running && this.position >= this.startHead;
  }

  get startedFrom(): number {
    return this.resumedFrom;
  }

  lastAppliedBy(name: string): number {
    const slot = this.tracked.indexOf(name);
    if (slot < 0) throw new Error(`the projection thread does not publish where '${name}' is (tracked: ${this.tracked.join(', ')})`);
    return Number(Atomics.load(this.slots, 1 + slot));
  }

  waitForPosition(position: number, timeoutMs: number): Promise<boolean> {
    this.notifier.advance(this.position);
    return this.notifier.waitFor(position, timeoutMs);
  }

  /** Starts the thread; resolves once its runner started (it catches up from there; see `ready`). */
  async start(): Promise<void> {
    this.stopping = null;
    this.startHead = await this.headPosition();
    await this.spawn();
  }

  /** Stops the thread after the batch it is applying (its checkpoint commits with it). */
  async stop(): Promise<void> {
    await (this.stopping ??= this.shutDown());
  }

  /**
   * Ends the thread at once, as a crash would (a batch it was applying rolls back); it is started
   * again like after any crash. For the fault tests.
   */
  async kill(): Promise<void> {
    await this.worker?.terminate();
  }

  private spawn(): Promise<void> {
    const data: ProjectionThreadData = {
      config: this.config,
      logLevel: this.logger.level,
      features: this.features,
      tracked: this.tracked,
      positions: this.shared,
    };
    // Run from the sources (tests, the bench) the thread needs the same TypeScript loader; built, plain node.
    const typescript = extname(__filename) === '.ts';
    const worker = new Worker(join(__dirname, `projection-thread-worker${extname(__filename)}`), {
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
      execArgv:
        typescript && !process.execArgv.includes('@swc-node/register') ? [...process.execArgv, '-r', '@swc-node/register'] : undefined,
    });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the projection thread did not start within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      let started = false;
      worker.on('message', (message: FromProjectionThread) => {
        if (message === 'stopped') return;
        if ('committed' in message) this.notifier.advance(this.position);
        else if ('log' in message) relayLogLine(this.logger, message.log);
        else if ('started' in message) {
          started = true;
          clearTimeout(timer);
          this.resumedFrom = message.started.from;
          this.running = true;
          this.notifier.advance(this.position);
          this.logger.debug({ from: message.started.from }, 'projection thread started');
          resolve();
        } else if ('failed' in message) {
          this.logger.error({ reason: message.failed }, 'projection thread failed; starting it again');
          this.running = false;
          void worker.terminate();
        }
      });
      worker.on('error', (error) => this.logger.error({ err: error }, 'projection thread error'));
      worker.on('exit', (code) => {
        clearTimeout(timer);
        if (this.worker === worker) this.worker = null;
        this.running = false;
        if (this.stopping) return;
        if (!started) {
          reject(new Error(`the projection thread exited (code ${code}) before it started`));
          return;
        }
        this.logger.error({ code }, 'projection thread exited; starting it again');
        setTimeout(() => {
          if (!this.stopping)
            this.spawn().catch((error: unknown) => this.logger.error({ err: error }, 'projection thread did not start again'));
        }, RESTART_DELAY_MS).unref();
      });
    });
  }

  private async shutDown(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop' satisfies ToProjectionThread);
    const timer = setTimeout(() => void worker.terminate(), 30_000);
    await exited;
    clearTimeout(timer);
    this.running = false;
  }
}

/**
 * The names of `features`, whose projections the thread builds again (from app/feature-registry.ts): a feature with
 * projections that is not one of those (a test's own), or whose projections were built with
 * something of this process (a stats object), could not run there as given, so it is refused.
 */
function threadFeatures(features: Feature[]): string[] {
  const foreign = features
    .filter((f) => f.projections && (!hasRegisteredProjections(f.name) || f.projectionsNeedThisThread))
    .map((f) => f.name);
  if (foreign.length > 0)
    throw new Error(
      `the projection thread builds the embedded features' projections by name, as shipped; it cannot run those of ${foreign.join(', ')} as given: set PROJECTION_THREAD=false`,
    );
  return features.map((f) => f.name);
}
