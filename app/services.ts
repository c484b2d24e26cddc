import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Freshness, Services } from '../command-service/http/services';
import { systemClock, type Clock } from '../shared/clock';
import type { Config } from '../shared/config';
import type { Secrets } from '../shared/secrets/secret-box';
import { CommandPipeline, type SnapshotPolicy } from '../shared/cqrs/command-pipeline';
import { FileSnapshotStore } from '../shared/cqrs/snapshot-store';
import { envDecider } from '../shared/domain/env/decider';
import { orgDecider } from '../shared/domain/org/decider';
import type { EventStore } from '../shared/eventstore/port';
import type { Metrics } from '../shared/metrics/metrics';
import type { ReadModels } from '../shared/read-models/read-models';
import { inForceAt } from '../shared/read-models/in-force';
import { TimeTravel } from '../command-service/time-travel/time-travel';
import { DecisionRecorder } from '../shared/decision-log/recorder';
import { createDecisionLogStore } from './stores';

/**
 * The services the HTTP layer and the features use, over the given stores; `freshness` says how
 * current the read models are, `secrets` seals and opens secrets (shared/secrets/secrets-key.ts).
 */
export function buildServices(
  config: Config,
  logger: Logger,
  eventStore: EventStore,
  readModels: ReadModels,
  metrics: Metrics,
  freshness: Freshness,
  secrets: Secrets,
  /** Whether this process applies the decision log's retention bound (a check worker leaves it to the main process). */
  decisionLogRetention = true,
  /** "Now" (shared/clock.ts): the system's, or a test's. */
  clock: Clock = systemClock,
): Services {
  const snapshots: SnapshotPolicy | null =
    config.COMMAND_SNAPSHOT_EVERY > 0
      ? { store: new FileSnapshotStore(config.SNAPSHOT_DIR ?? join(config.DATA_DIR, 'snapshots')), every: config.COMMAND_SNAPSHOT_EVERY }
      : null;
  return {
    config,
    logger,
    // What the API reads is what is in force at the clock's instant (ends: docs/expiring-access.md).
    readModels: inForceAt(readModels, () => clock.now()),
    envCommands: new CommandPipeline(eventStore, envDecider, logger.child({ component: 'env-commands' }), undefined, snapshots),
    orgCommands: new CommandPipeline(eventStore, orgDecider, logger.child({ component: 'org-commands' }), undefined, snapshots),
    freshness,
    timeTravel: new TimeTravel({ documentStore: readModels.store, eventStore, freshness, config, clock }),
    metrics,
    secrets,
    decisionLog: decisionRecorder(config, logger, metrics, decisionLogRetention),
    clock,
  };
}

/** The decision log's recorder as the configuration says (DECISION_LOG…, docs/decision-logs.md). */
export function decisionRecorder(config: Config, logger: Logger, metrics: Metrics, retention: boolean): DecisionRecorder {
  return new DecisionRecorder({
    mode: config.DECISION_LOG,
    sampleRate: config.DECISION_LOG_SAMPLE_RATE,
    maxBuffered: config.DECISION_LOG_BUFFER,
    flushMs: config.DECISION_LOG_FLUSH_MS,
    retention: retention
      ? { maxAgeMs: config.DECISION_LOG_RETENTION_DAYS * 86_400_000, maxEntries: config.DECISION_LOG_MAX_ENTRIES }
      : null,
    openStore: () => createDecisionLogStore(config),
    logger,
    counts: metrics.decisionLog,
  });
}

/** Saves the command-state snapshots of every stream that moved (on shutdown, after the last request). */
export async function flushCommandSnapshots(services: Services): Promise<void> {
  await services.envCommands.flushSnapshots();
  await services.orgCommands.flushSnapshots();
}
