import type { Response } from 'express';
import { decisionId, plainCheckInput, type DecisionEntry } from '../../../shared/decision-log/port';
import type { DecisionRecorder } from '../../../shared/decision-log/recorder';
import type { EnvironmentDoc } from '../../../shared/read-models/read-models';
import type { CheckRequest } from '../../grant-queries/types';
import { authOf } from '../../http/auth';
import { POSITION_HEADER } from '../../http/services';

/**
 * What the check routes hand the decision log (docs/decision-logs.md): one call per route, after
 * its answer. Whether an entry is kept is asked before it is built, so with DECISION_LOG=off a
 * check pays one comparison; the entries wait in the recorder's buffer, written off the check's path.
 */

/** Who asked where, and the position the answer was decided at. */
export interface DecisionSource {
  endpoint: string;
  keyId: string | null;
  environment: Pick<EnvironmentDoc, 'id' | 'organization_id' | 'project_id'>;
  position: number;
}

/** The source of an express route's answer: its key, and the position its receipt header says. */
export function sourceOf(res: Response, endpoint: string, environment: DecisionSource['environment']): DecisionSource {
  return { endpoint, keyId: authOf(res).keyId, environment, position: Number(res.getHeader(POSITION_HEADER) ?? 0) };
}

/** A check and its answer; `result` is the answer as the endpoint gave it (default `{allow}`). */
export interface CheckDecision {
  question: CheckRequest;
  allow: boolean;
  result?: unknown;
  /** Where it differs from the source's (a check of a bulk request with its own `as_of`). */
  position?: number;
}

/** Records yes-or-no decisions (each kept or not by the recorder's sampling). */
export function recordChecks(log: DecisionRecorder, source: DecisionSource, decided: readonly CheckDecision[]): void {
  for (const one of decided) {
    if (!log.wants()) continue;
    const { question, allow } = one;
    const { resource } = question;
    // One literal per check (this runs for every check answered).
    const now = Date.now();
    log.add({
      id: decisionId(now),
      timestamp: now,
      organizationId: source.environment.organization_id,
      projectId: source.environment.project_id,
      environmentId: source.environment.id,
      apiKeyId: source.keyId,
      endpoint: source.endpoint,
      position: one.position ?? source.position,
      queryType: 'check',
      user: question.user,
      action: question.action,
      resourceType: resource.type,
      resourceKey: resource.key,
      tenant: resource.tenant,
      decision: allow,
      // Left null where the entry's fields say them (port.ts, inputOf and resultOf).
      input: question.abac ? checkInput(question) : null,
      result: one.result ?? null,
    });
  }
}

/** Records a `/user-permissions` answer: the question and the page answered (no one yes or no). */
export function recordUserPermissions(
  log: DecisionRecorder,
  source: DecisionSource,
  question: { user: string; tenants?: string[] | null; resource_types?: string[] | null; resources?: string[] | null } & Record<
    string,
    unknown
  >,
  answer: unknown,
): void {
  if (!log.wants()) return;
  const tenants = question.tenants ?? [];
  const types = question.resource_types ?? [];
  log.add(
    entry(source, {
      queryType: 'get_user_permissions',
      user: question.user,
      action: null,
      resourceType: types.length === 1 ? types[0]! : null,
      resourceKey: null,
      tenant: tenants.length === 1 ? tenants[0]! : null,
      decision: null,
      input: { ...question },
      result: answer,
    }),
  );
}

type EntryParts = Omit<
  DecisionEntry,
  'id' | 'timestamp' | 'organizationId' | 'projectId' | 'environmentId' | 'apiKeyId' | 'endpoint' | 'position'
>;

function entry(source: DecisionSource, parts: EntryParts): DecisionEntry {
  const { environment } = source;
  // The id's time is the entry's time (the store keeps entries in id order).
  const now = Date.now();
  return {
    id: decisionId(now),
    timestamp: now,
    organizationId: environment.organization_id,
    projectId: environment.project_id,
    environmentId: environment.id,
    apiKeyId: source.keyId,
    endpoint: source.endpoint,
    position: source.position,
    ...parts,
  };
}

/** A check as `/allowed` takes it: posted again with `as_of` the entry's position, it re-derives the decision. */
export function checkInput(question: CheckRequest): Record<string, unknown> {
  const { user, action, resource, abac } = question;
  const input = plainCheckInput(user, action, resource.type, resource.key, resource.tenant);
  if (!abac) return input;
  if (abac.user) (input.user as Record<string, unknown>).attributes = abac.user;
  if (abac.resource) (input.resource as Record<string, unknown>).attributes = abac.resource;
  if (abac.context) input.context = abac.context;
  return input;
}
