import type { EnvEvent, EventHandlers, RecordedEvent } from '../../shared/events';
import { dispatch, eventTypes, handledTypes, streamCategory } from '../../shared/events';
import type { Projection } from '../../shared/read-models/projection';
import type { ReadModels } from '../../shared/read-models/read-models';
import { instanceKeys, tupleEdges } from '../../shared/read-models/grants/fact-finders';
import { readStoresOf } from '../../shared/read-stores/port';
import type { GrantContext } from './context';
import { onAssignmentEndMoved, onTupleEndMoved } from './on-ends';
import { onInstanceDeleted, onRoleAssigned, onRoleUnassigned, onTupleCreated, onTupleDeleted } from './on-facts';
import {
  onDerivationsReplaced,
  onImplicitGrantAdded,
  onImplicitGrantRemoved,
  onRelationDeleted,
  onResourceDeleted,
  onRoleDeleted,
  dropStoredSinkGrants,
} from './on-schema';
import { RuleBook } from './rule-book';
import { onDerivationConditionsSet } from './conditions';
import { BatchHolders } from './batch-holders';
import { PrefetchedEdges } from './prefetched-edges';
import { GrantStats } from './stats';
import { Yielder } from '../yielder';
import { runRetraction } from './expiry-runs';
import { deleteByIds } from './paging';
import type { GrantDoc } from '../../shared/read-models/grants/model';

/**
 * What each environment event does to the derived grants. Events that only
 * create objects (resources, roles, instances, users, tenants) cannot change a
 * grant; role permissions are read at check time.
 */
export const grantsProjectionHandlers: EventHandlers<EnvEvent, GrantContext, Promise<void>> = {
  ResourceCreated: 'ignored',
  // Actions, attributes and groups change no holder of any role; a removed action leaves the
  // roles that granted it through RoleUpdated, which checks read from the role documents.
  ResourceUpdated: 'ignored',
  ActionCreated: 'ignored',
  ActionUpdated: 'ignored',
  ActionDeleted: 'ignored',
  AttributeCreated: 'ignored',
  AttributeUpdated: 'ignored',
  AttributeDeleted: 'ignored',
  ActionGroupCreated: 'ignored',
  ActionGroupUpdated: 'ignored',
  ActionGroupDeleted: 'ignored',
  ResourceDeleted: onResourceDeleted,
  RoleCreated: 'ignored',
  RoleUpdated: 'ignored',
  RoleDerivationsReplaced: onDerivationsReplaced,
  ImplicitGrantAdded: onImplicitGrantAdded,
  ImplicitGrantRemoved: onImplicitGrantRemoved,
  // Inherited permissions are read at check time, like a role's own.
  RoleExtendsReplaced: 'ignored',
  RoleDerivationConditionsSet: onDerivationConditionsSet,
  RoleDeleted: onRoleDeleted,
  RelationCreated: 'ignored',
  RelationDeleted: onRelationDeleted,
  TenantCreated: 'ignored',
  TenantUpdated: 'ignored',
  TenantDeleted: 'ignored',
  UserCreated: 'ignored',
  UserUpdated: 'ignored',
  // The user's assignments go first, as RoleUnassigned events, which drop their grants.
  UserDeleted: 'ignored',
  ResourceInstanceCreated: 'ignored',
  ResourceInstanceUpdated: 'ignored',
  ResourceInstanceDeleted: onInstanceDeleted,
  RoleAssigned: onRoleAssigned,
  RoleUnassigned: onRoleUnassigned,
  RelationshipTupleCreated: onTupleCreated,
  RelationshipTupleDeleted: onTupleDeleted,
  // An end moved: what it supported is derived again with the new end (on-ends.ts).
  RoleAssignmentExpirySet: onAssignmentEndMoved,
  RelationshipTupleExpirySet: onTupleEndMoved,
  // An end passed: as an unassignment, a deletion (the checks stopped counting it at the end already).
  RoleAssignmentExpired: (ctx, e) => onRoleUnassigned(ctx, { type: 'RoleUnassigned', data: e.data }),
  RelationshipTupleExpired: (ctx, e) => onTupleDeleted(ctx, { type: 'RelationshipTupleDeleted', data: e.data }),
  // Set rules are evaluated at check time (attributes may arrive with the check): nothing is materialised.
  ConditionSetCreated: 'ignored',
  ConditionSetUpdated: 'ignored',
  ConditionSetDeleted: 'ignored',
  SetRuleCreated: 'ignored',
  SetRuleDeleted: 'ignored',
  // Proxy configs take no part in a check: nothing is proxied.
  ProxyConfigCreated: 'ignored',
  ProxyConfigUpdated: 'ignored',
  ProxyConfigDeleted: 'ignored',
  // An invite grants nothing; its approval's RoleAssigned does.
  UserInviteCreated: 'ignored',
  UserInviteUpdated: 'ignored',
  UserInviteApproved: 'ignored',
  UserInviteDeleted: 'ignored',
  AssertionSaved: 'ignored',
  AssertionDeleted: 'ignored',
};
const handles = handledTypes(eventTypes.env, grantsProjectionHandlers);

/** Events after which the facts' tuples differ (the facts projection has applied them first). */
const tupleChanges: ReadonlySet<EnvEvent['type']> = new Set([
  'RelationshipTupleCreated',
  'RelationshipTupleDeleted',
  'RelationshipTupleExpirySet',
  'RelationshipTupleExpired',
  'ResourceInstanceDeleted',
]);

export interface GrantsProjectionOptions {
  stats?: GrantStats;
  /** How long a derivation may run before it yields to the event loop. */
  sliceMs?: number;
}

/**
 * Maintains the derived-grants read model incrementally. Must run after the
 * schema and facts projections (it reads their assignments).
 *
 * Idempotent under redelivery: every handler compares against what is stored
 * (grants by deterministic id, the rule index, the facts' tuples).
 */
export function grantsProjection(rm: ReadModels, options: GrantsProjectionOptions = {}): Projection<EnvEvent> {
  // The grants' store on the runner's writer view: its writes commit with the batch (docs/read-stores.md).
  const grants = readStoresOf(rm.store).grants;
  const edges = tupleEdges(rm.tuples);
  const instances = instanceKeys(rm.instances);
  const ruleBook = new RuleBook(grants);
  const stats = options.stats ?? new GrantStats();
  const yielder = new Yielder(options.sliceMs);
  const holders = new BatchHolders(grants);
  const prefetched = new PrefetchedEdges(edges);
  /** Whether applying the last event may have changed a check's answer (changedAnswers). */
  let answersMayHaveChanged = false;
  /** The run of expiries last accepted (acceptsRun), by its positions, and the grants it removes. */
  let accepted: { first: number; last: number; removed: GrantDoc[] } | null = null;
  /** What the derivation steps of `event` work with. */
  const contextOf = async (event: RecordedEvent): Promise<GrantContext> => {
    const environmentId = streamCategory(event.streamId).id;
    return {
      environmentId,
      at: event.metadata.timestamp,
      rules: await ruleBook.of(environmentId),
      // Writes go through the recorder, which drops the holders it had read of an instance written.
      grants: holders.recording(environmentId, () => (answersMayHaveChanged = true)),
      edges,
      instanceKeys: instances,
      assignments: rm.assignments,
      stats,
      yielder,
      prefetchedEdges: (instance) => prefetched.of(environmentId, instance, event.position),
      holdersBefore: (instance) => holders.of(environmentId, instance, event.position),
      previous: new Map(),
    };
  };
  return {
    name: 'derived-grants',
    // 2: a grant keeps the support whose chain ends last, and that chain's first end (docs/expiring-access.md).
    // 3: the grants and their rules in their own store (shared/read-stores/grants/), rebuilt from the log.
    version: 3,
    handles,
    async prepare(batch) {
      await holders.prepare(batch);
      await prefetched.prepare(batch);
    },
    // An expiry only drops what already ended (shared/read-models/answer-changes.ts), unless a grant
    // was written on it (derived again), or the environment has `no_direct_roles_on_object` roles:
    // an expiry gives those back, stored (conditions.ts) or read (a sink role's guard,
    // effective-grants.ts, lifts at the end itself), so an answer cached before it may be stale.
    changedAnswers: () => answersMayHaveChanged,
    // A run of expiries (shared/read-models/runs.ts) is taken when deleting the grants it removes is
    // exactly its retraction one at a time (expiry-runs.ts), read before any of it is applied.
    async acceptsRun(run) {
      const first = run[0]!;
      ruleBook.peek(first.position);
      try {
        const removed = await runRetraction(await contextOf(first), run);
        accepted = removed && { first: first.position, last: run.at(-1)!.position, removed };
      } catch (error) {
        ruleBook.reset();
        throw error;
      }
      return accepted !== null;
    },
    async applyRun(run) {
      answersMayHaveChanged = false;
      const first = run[0]!;
      const last = run.at(-1)!;
      const taken = accepted?.first === first.position && accepted.last === last.position ? accepted : null;
      accepted = null;
      ruleBook.observe(last.position);
      const ctx = await contextOf(last);
      // Read when it was accepted; read again if not (the facts projection has applied the run since, which changes nothing read).
      const removed = taken?.removed ?? (await runRetraction(ctx, run));
      if (removed === null) throw new Error(`the run of expiries at ${first.position}–${last.position} cannot be applied at once`);
      // Dependants first: a retry after a partial delete (an engine without transactions) still finds what is left from its roots.
      ctx.stats.grantsDeleted += await deleteByIds(ctx.grants, removed.map((g) => g.id).reverse(), yielder);
      stats.events += run.length;
    },
    async apply(event) {
      answersMayHaveChanged = false;
      if (!handles.has(event.type)) return;
      ruleBook.observe(event.position);
      if (tupleChanges.has(event.type)) prefetched.forget();
      const ctx = await contextOf(event);
      const environmentId = ctx.environmentId;
      try {
        if (!ctx.rules.sinksImplied) await dropStoredSinkGrants(ctx);
        await dispatch(grantsProjectionHandlers, event.type, ctx, event);
        if (ctx.rules.hasGuarded()) answersMayHaveChanged = true;
        await ruleBook.saveIfChanged(environmentId, ctx.rules);
      } catch (error) {
        ruleBook.reset();
        throw error;
      }
      stats.events += 1;
    },
  };
}
