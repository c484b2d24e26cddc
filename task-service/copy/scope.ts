import type { EnvEvent } from '../../shared/events';

/**
 * What a copy takes from the source. The policy (resource types, actions,
 * roles, relations, derivations) always, as Permit does; the directory data
 * (tenants, users, instances, assignments, tuples) with `scope.facts`.
 * Facts events only ever reference policy objects, never the reverse, so
 * dropping every facts event from a valid stream leaves a valid stream.
 */

/** Which part of an environment each event type belongs to; keyed by every type, so a new one must be placed. */
export const copyPartOf: { readonly [T in EnvEvent['type']]: 'policy' | 'facts' } = {
  ResourceCreated: 'policy',
  ResourceDeleted: 'policy',
  RoleCreated: 'policy',
  RoleUpdated: 'policy',
  RoleDerivationsReplaced: 'policy',
  ImplicitGrantAdded: 'policy',
  ImplicitGrantRemoved: 'policy',
  RoleDeleted: 'policy',
  RelationCreated: 'policy',
  RelationDeleted: 'policy',
  TenantCreated: 'facts',
  TenantUpdated: 'facts',
  TenantDeleted: 'facts',
  UserCreated: 'facts',
  UserUpdated: 'facts',
  UserDeleted: 'facts',
  ResourceInstanceCreated: 'facts',
  ResourceInstanceUpdated: 'facts',
  ResourceInstanceDeleted: 'facts',
  RoleAssigned: 'facts',
  RoleUnassigned: 'facts',
  RelationshipTupleCreated: 'facts',
  RelationshipTupleDeleted: 'facts',
};

/** By any type string (events of other kinds have no part), for the copy's filter. */
const partOfType: ReadonlyMap<string, 'policy' | 'facts'> = new Map(Object.entries(copyPartOf));

export interface CopyScope {
  facts: boolean;
}

export function inScope(type: string, scope: CopyScope): boolean {
  const part = partOfType.get(type);
  return part === 'policy' || (scope.facts && part === 'facts');
}

export const isFactsEvent = (type: string): boolean => partOfType.get(type) === 'facts';
