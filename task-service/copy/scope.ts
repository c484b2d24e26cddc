import type { EnvEvent } from '../../shared/events';

/**
 * What a copy takes from the source. The policy (resource types, actions,
 * roles, relations, derivations) always, as Permit does; the directory data
 * (tenants, users, instances, assignments, tuples) with `scope.facts`.
 * Facts events only ever reference policy objects, never the reverse, so
 * dropping every facts event from a valid stream leaves a valid stream.
 */

const POLICY_EVENTS: ReadonlySet<string> = new Set<EnvEvent['type']>([
  'ResourceCreated',
  'ResourceDeleted',
  'RoleCreated',
  'RoleUpdated',
  'RoleDerivationsReplaced',
  'ImplicitGrantAdded',
  'ImplicitGrantRemoved',
  'RoleDeleted',
  'RelationCreated',
  'RelationDeleted',
]);

const FACTS_EVENTS: ReadonlySet<string> = new Set<EnvEvent['type']>([
  'TenantCreated',
  'TenantDeleted',
  'UserCreated',
  'ResourceInstanceCreated',
  'ResourceInstanceDeleted',
  'RoleAssigned',
  'RoleUnassigned',
  'RelationshipTupleCreated',
  'RelationshipTupleDeleted',
]);

export interface CopyScope {
  facts: boolean;
}

export function inScope(type: string, scope: CopyScope): boolean {
  if (POLICY_EVENTS.has(type)) return true;
  return scope.facts && FACTS_EVENTS.has(type);
}

export const isFactsEvent = (type: string): boolean => FACTS_EVENTS.has(type);
