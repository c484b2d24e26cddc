import type { EnvEventOf } from '../../shared/events';
import { grantId } from '../../shared/read-models/grants/model';
import type { GrantContext } from './context';
import { offerAssignment, offerTuple, onTupleDeleted } from './on-facts';
import { retract } from './retract';

/**
 * An assignment's end moved (docs/expiring-access.md). Its grant, when the assignment is the stored
 * support, is retracted and restored: restore() finds the support that now ends last (this
 * assignment with its new end, or another) and derives on from it, so the ends stored along its
 * dependants' chains follow, earlier or later. When another support was stored, the assignment may
 * now end later than it: it is offered as a new support would be.
 */
export async function onAssignmentEndMoved(ctx: GrantContext, e: EnvEventOf<'RoleAssignmentExpirySet'>): Promise<void> {
  const d = e.data;
  if (d.resourceInstance === null || d.resource === null) return;
  const grant = await ctx.grants.get(grantId(ctx.environmentId, d.user, d.resourceInstance, d.role));
  if (grant?.reason.kind === 'assignment' && grant.reason.assignment_id === d.id) {
    await retract(ctx, [grant]);
    return;
  }
  await offerAssignment(ctx, { ...d, resource: d.resource, resourceInstance: d.resourceInstance }, d.expiresAt);
}

/**
 * A tuple's end moved: the grants it supported are retracted and restored (each with the support
 * that now ends last, this tuple included), then the tuple is offered again with its new end, to
 * the grants some other support held.
 */
export async function onTupleEndMoved(ctx: GrantContext, e: EnvEventOf<'RelationshipTupleExpirySet'>): Promise<void> {
  const { expiresAt, ...tuple } = e.data;
  await onTupleDeleted(ctx, { type: 'RelationshipTupleDeleted', data: tuple });
  await offerTuple(ctx, tuple, expiresAt);
}
