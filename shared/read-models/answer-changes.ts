import type { RecordedEvent } from '../events/envelope';
import type { Projection } from './projection';

/**
 * Event types whose projection changes no permission check's answer at any instant from the
 * event on: an expiry removes an assignment or a tuple that stopped counting at its end, before
 * the event (every read is "in force at t", docs/expiring-access.md). A projection may still say
 * that applying one did change an answer (Projection.changedAnswers): the derived-grants
 * projection gives a `no_direct_roles_on_object` role back when a user's direct role on the
 * object expires.
 */
export const ANSWER_NEUTRAL_TYPES: ReadonlySet<string> = new Set(['RoleAssignmentExpired', 'RelationshipTupleExpired']);

/**
 * The name under which the runner answers `lastAppliedBy` with the position of the last event that
 * may have changed a check's answer (and, suffixed to its checkpoint's name, stores it for the
 * processes that read its read models: app/replica-freshness.ts). A decision cache kept by it is
 * exact and survives the expiries.
 */
export const ANSWERS = '(answers)';

/** The stored checkpoint holding ANSWERS' position beside the read models' own `checkpointName`. */
export const answersCheckpoint = (checkpointName: string): string => `${checkpointName}${ANSWERS}`;

/** Whether applying `event` (just done) may have changed a check's answer. */
export function mayChangeAnswers(event: RecordedEvent, projections: readonly Projection[]): boolean {
  if (!ANSWER_NEUTRAL_TYPES.has(event.type)) return true;
  return projections.some(
    (projection) => (projection.handles as ReadonlySet<string>).has(event.type) && projection.changedAnswers?.() === true,
  );
}
