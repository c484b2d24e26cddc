import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ReadModels } from '../../shared/read-models/read-models';
import type { Clock } from '../../shared/clock';
import type { Config } from '../../shared/config';
import type { Secrets } from '../../shared/secrets/secret-box';
import type { DecisionRecorder } from '../../shared/decision-log/recorder';
import type { Metrics } from '../../shared/metrics/metrics';
import type { CommandOutcome, CommandPipeline } from '../../shared/cqrs/command-pipeline';
import type { EnvCommand } from '../../shared/domain/env/commands';
import type { EnvState } from '../../shared/domain/env/state';
import type { OrgCommand, OrgState } from '../../shared/domain/org/decider';
import type { EnvEvent, EventMetadata, OrgEvent } from '../../shared/events';
import { CURRENT_SCHEMA_VERSION, streams } from '../../shared/events';
import type { TimeTravel } from '../time-travel/time-travel';
import { auditMetadataOf } from './audit-metadata';
import { activeTraceCarrier } from '../../shared/tracing/spans';
import { MIN_POSITION_HEADER, POSITION_HEADER } from './position-headers';
import { authOf } from './auth';
import { syncWaitOfResponse, waitForReadModels } from './read-your-writes';
import type { ReadModelGroup } from './read-model-groups';

/** How far the read models are: lets a write wait until its own events are visible. */
export interface Freshness {
  readonly position: number;
  readonly ready: boolean;
  waitForPosition(position: number, timeoutMs: number): Promise<boolean>;
  /**
   * True when `position` moves in this process as soon as the read models
   * commit (the one-process service): caches kept per position are then never
   * behind the store. Unset where it is learnt by polling (a separate command
   * service), where it may lag the store by one poll.
   */
  readonly exact?: boolean;
  /**
   * The position of the last projected event that could have changed one group of read models
   * (ReadModelGroup), where this process knows it exactly (the one-process service): a cache
   * of answers read only from that group is kept per this position, so the writes of facts that
   * move `position` many times a second do not empty it. Absent elsewhere: `position` stands in.
   */
  lastChangeOf?(group: ReadModelGroup): number;
}

/** Everything the HTTP layer needs, built by a composition root; no module singletons. */
export interface Services {
  config: Config;
  logger: Logger;
  readModels: ReadModels;
  envCommands: CommandPipeline<EnvCommand, EnvState, EnvEvent>;
  orgCommands: CommandPipeline<OrgCommand, OrgState, OrgEvent>;
  freshness: Freshness;
  /** Reads and checks `as_of` a past log position (the history read model). */
  timeTravel: TimeTravel;
  /** This service's metrics (`GET /metrics`). */
  metrics: Metrics;
  /** Seals the secrets a write carries before they are appended, opens them where a read answers them (shared/secrets/). */
  secrets: Secrets;
  /** Keeps the permission decisions the PDP endpoints answer (docs/decision-logs.md), off their path. */
  decisionLog: DecisionRecorder;
  /** "Now" for the answers that depend on it: ends of access (docs/expiring-access.md). */
  clock: Clock;
}

export { MIN_POSITION_HEADER, POSITION_HEADER } from './position-headers';

export function metadataOf(req: Request, res: Response): EventMetadata {
  return eventMetadata(req, String(res.locals.requestId ?? ''), res.locals.auth ? authOf(res).keyId : null);
}

/** What the events of a request's write say of it: who (the key), which request, when, and the writer's audit metadata. */
export function eventMetadata(req: Pick<IncomingMessage, 'headers'>, requestId: string, actor: string | null): EventMetadata {
  const auditMetadata = auditMetadataOf(req);
  const correlationId = req.headers['x-correlation-id'];
  return {
    actor,
    requestId,
    correlationId: typeof correlationId === 'string' ? correlationId : requestId,
    timestamp: new Date().toISOString(),
    schemaVersion: CURRENT_SCHEMA_VERSION,
    ...(auditMetadata ? { auditMetadata } : {}),
    ...activeTraceCarrier(),
  };
}

/**
 * Read-your-writes: answers only once the read models reflect `position`
 * (bounded by READ_YOUR_WRITES_TIMEOUT_MS, or as the request's X-Wait-Timeout and
 * X-Timeout-Policy say: read-your-writes.ts), and tells the client the position.
 */
export async function awaitReadModels(services: Services, res: Pick<ServerResponse, 'setHeader'>, position: number): Promise<void> {
  if (position <= 0) return;
  res.setHeader(POSITION_HEADER, String(position));
  await waitForReadModels(
    services.freshness,
    services.config.READ_YOUR_WRITES_TIMEOUT_MS,
    position,
    syncWaitOfResponse(res),
    (waitedMs) =>
      `The write was stored at position ${position}, but the read models did not reflect it within ${waitedMs} ms; read again later with ${MIN_POSITION_HEADER}: ${position}`,
  );
}

export async function executeEnvCommand(
  services: Services,
  req: Request,
  res: Response,
  environmentId: string,
  command: EnvCommand,
): Promise<CommandOutcome<EnvEvent>> {
  const outcome = await services.envCommands.execute(streams.environment(environmentId), command, metadataOf(req, res));
  await awaitReadModels(services, res, outcome.position);
  return outcome;
}

export async function executeOrgCommand(
  services: Services,
  req: Request,
  res: Response,
  organizationId: string,
  command: OrgCommand,
): Promise<CommandOutcome<OrgEvent>> {
  const outcome = await services.orgCommands.execute(streams.organization(organizationId), command, metadataOf(req, res));
  await awaitReadModels(services, res, outcome.position);
  return outcome;
}
