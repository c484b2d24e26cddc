import type { Logger } from 'pino';
import type { CommandPipeline } from '../../shared/cqrs/command-pipeline';
import type { OrgCommand, OrgState } from '../../shared/domain/org/decider';
import type { OrgEvent } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';
import type { CopyMetrics } from '../../shared/metrics/metrics';
import type { CopyRequest } from '../../shared/domain/task/decider';
import type { CopyOrigin } from './remap';
import type { SourceBound } from './source-reader';

/** What a copy needs from the process: the log, the organisation's command pipeline (to create environments). */
export interface CopyDependencies {
  eventStore: EventStore;
  orgCommands: CommandPipeline<OrgCommand, OrgState, OrgEvent>;
  logger: Logger;
  /** Source events read (and target events appended) per round trip. */
  batchSize: number;
  /** Counts the events copied and the copies running, in place (metrics). */
  metrics?: CopyMetrics;
}

export interface CopyProgress {
  sourceEventsRead: number;
  eventsCopied: number;
}

/** One copy to run: the request as the log holds it, resolved against the source. */
export interface CopyJob {
  request: CopyRequest;
  sourceEnvironmentId: string;
  bound: SourceBound;
  origin: CopyOrigin;
  /** Reports progress; may throw when the attempt was taken over (the copy then stops). */
  progress(progress: CopyProgress): Promise<void>;
  /** Aborted when the service shuts down: the copy stops between batches and resumes after the restart. */
  signal: AbortSignal;
}

/** Thrown when a copy stops because its worker is shutting down (the task stays `processing` and resumes later). */
export class CopyInterruptedError extends Error {
  constructor() {
    super('the copy was interrupted by a shutdown; it resumes when the task is delivered again');
    this.name = 'CopyInterruptedError';
  }
}

export interface CopyOutcome extends CopyProgress {
  environmentId: string;
}
