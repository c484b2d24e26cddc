import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock';
import type { CommandPipeline } from '../../shared/cqrs/command-pipeline';
import type { EnvCommand } from '../../shared/domain/env/commands';
import { MAX_EXPIRIES_PER_COMMAND } from '../../shared/domain/env/expiry-decisions';
import type { EnvState } from '../../shared/domain/env/state';
import { CURRENT_SCHEMA_VERSION, streams, type EnvEvent, type EventMetadata } from '../../shared/events';
import type { ReadModels } from '../../shared/read-models/read-models';

/** Due ends read per look at the read models. */
const DUE_PAGE = 1_000;

export interface ExpirySchedulerDeps {
  /** The read models (their `factEnds`: which environments have ends due). */
  readModels: ReadModels;
  envCommands: CommandPipeline<EnvCommand, EnvState, EnvEvent>;
  clock: Clock;
  logger: Logger;
  /** How often it looks for ends due: an expiry's event follows its end by at most about this (plus the projections' lag). */
  pollMs: number;
}

/**
 * Appends the expiry events (docs/expiring-access.md): every `pollMs`, the environments with an end
 * at or before now (the clock's) get an ExpireDue command, which their decider turns into one
 * RoleAssignmentExpired or RelationshipTupleExpired per end due, each with its own end as the time
 * it took effect, appended by the system (no actor). Checks never wait for it: they judge ends at
 * the instant they are asked; these events put the ends in the audit trail and let the read
 * models drop what ended.
 *
 * Where it runs: a worker of the process that runs workers (the one-process service; in the
 * distributed mode the task service), through the environment command pipeline. Several may run
 * at once: the command is decided against the stream and appended with its expected version, so
 * of two appends for one end the second conflicts, is decided again, and finds nothing due. A
 * restart after downtime finds every end it missed on its first look, each appended with its own
 * end.
 */
export class ExpiryScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /**
   * Ends already expired by this scheduler that the read models may not show gone yet (`id@end`):
   * not asked for again until they are. A due end the decider finds nothing for (an end moved
   * later, a fact removed, by an event not yet projected) is skipped the same way.
   */
  private readonly handled = new Set<string>();

  constructor(private readonly deps: ExpirySchedulerDeps) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look: the expiries due now appended, every environment's; how many events that made. */
  async runOnce(): Promise<number> {
    const now = new Date(this.deps.clock.now()).toISOString();
    const due = await this.deps.readModels.factEnds.find({ expires_at: { $lte: now } }, { sortBy: 'expires_at', limit: DUE_PAGE });
    const seen = new Set(due.map((d) => `${d.id}@${d.expires_at}`));
    for (const key of this.handled) if (!seen.has(key)) this.handled.delete(key);
    const fresh = due.filter((d) => !this.handled.has(`${d.id}@${d.expires_at}`));
    let appended = 0;
    for (const environmentId of new Set(fresh.map((d) => d.environment_id))) {
      appended += await this.expireIn(environmentId, now);
      for (const d of fresh) if (d.environment_id === environmentId) this.handled.add(`${d.id}@${d.expires_at}`);
    }
    return appended;
  }

  /** Every end due at `now` in one environment, a command at a time (each appends at most MAX_EXPIRIES_PER_COMMAND). */
  private async expireIn(environmentId: string, now: string): Promise<number> {
    if (!(await this.deps.readModels.environments.get(environmentId))) return 0;
    let appended = 0;
    for (;;) {
      const outcome = await this.deps.envCommands.execute(streams.environment(environmentId), { type: 'ExpireDue', now }, systemMetadata());
      appended += outcome.events.length;
      if (outcome.events.length < MAX_EXPIRIES_PER_COMMAND) return appended;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then(
          (appended) => {
            if (appended > 0) this.deps.logger.info({ appended }, 'expiries appended');
          },
          (error: unknown) => this.deps.logger.warn({ err: error }, 'expiries not appended; trying again'),
        )
        .finally(() => {
          this.running = null;
          this.schedule(this.deps.pollMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}

/**
 * What an expiry's events say of who wrote them: the service itself (no actor and no task: the
 * audit log's `system`), when they were appended (the end each took effect at is in its data).
 */
function systemMetadata(): EventMetadata {
  return { actor: null, timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION };
}
