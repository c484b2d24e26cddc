import type { Range } from '../../docstore/port';
import type { DerivationRule } from '../../events';
import { hash } from 'node:crypto';

/**
 * The derived-grants read model: one document per (environment, user, resource
 * instance, role) the user holds, directly or through role derivations.
 */

/** Why a grant exists. Exactly one current support is stored; it always points to an older grant, so chains end at an assignment. */
export type GrantReason =
  | { kind: 'assignment'; assignment_id: string }
  | {
      kind: 'derivation';
      from_grant: string;
      tuple: { id: string; subject: string; relation: string; object: string };
      rule: DerivationRule;
    };

export interface GrantDoc {
  /** grantId(environment_id, user, instance, role) */
  id: string;
  environment_id: string;
  user: string;
  /** `type:key` of the instance the role is held on. */
  instance: string;
  /** Resource type of the instance (and of the role). */
  resource: string;
  role: string;
  tenant: string;
  /** The grant this one derives from (null for a direct assignment); indexed, so retraction finds dependants. */
  from_grant: string | null;
  reason: GrantReason;
  /**
   * When the grant ends (ends.ts), absent when never: the first end along the chain of its stored
   * support, which is the support that ends last (docs/expiring-access.md), so that after this
   * instant no support is left. Checks count the grant only before it. Stored rows without an end
   * read back with null.
   */
  expires_at?: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * A relationship tuple as the derivation walks it: the columns it reads from
 * the facts read model's tuples (see `tupleEdges`), or built from a tuple event.
 */
export interface EdgeDoc {
  /** The tuple's id. */
  id: string;
  environment_id: string;
  subject: string;
  relation: string;
  object: string;
  tenant: string;
  /** When the tuple ends; null (or absent) when never. */
  expires_at?: string | null;
}

/** One derivation rule of one role: users holding `rule.role` on a linked `rule.onResource` get `role` of `resource`. */
export interface RuleEntry {
  resource: string;
  role: string;
  rule: DerivationRule;
}

/** The derivation rules of one environment, as the grants projection last applied them. */
export interface RulesDoc {
  /** The environment id. */
  id: string;
  environment_id: string;
  rules: RuleEntry[];
  /**
   * Roles (`resource#role`) whose derivations carry `no_direct_roles_on_object`:
   * they give nothing to a user on an instance where the user holds a direct role.
   * Absent in documents stored before the condition existed.
   */
  guarded?: string[];
  /**
   * True once the projection stores no derived grant of a sink role (a role no rule starts
   * from). Absent in documents stored before: their environment's rows are cleaned first.
   */
  sinks_implied?: boolean;
}

/**
 * Deterministic, so a redelivered event writes the same document and a check
 * can compute the id it looks for. A hash of (environment, user) followed by
 * the instance and role: one user's grants sort together by instance, so a
 * large fan-out (which derives in instance order) appends to the id index
 * instead of scattering writes over it.
 */
export function grantId(environmentId: string, user: string, instance: string, role: string): string {
  return `${userPrefix(environmentId, user)}:${instance}#${role}`;
}

/**
 * The ids of one user's grants, after the instance `afterInstance` (all of them when null): a range of the id
 * index, which is how the grants collection is read by user (it keeps no index of its own on the
 * user: one less per grant written). Instance types and keys are `[A-Za-z0-9_-]` with a ':'
 * between (keySchema), every one of them above '#' and '$' in byte order, so ids `<prefix>:<instance>#<role>`
 * sort as their instances do, and one instance's grants are exactly the ids from
 * `<prefix>:<instance>#` up to `<prefix>:<instance>$` (see instanceGrantIds).
 */
export function userGrantIds(environmentId: string, user: string, afterInstance: string | null): Range {
  const prefix = userPrefix(environmentId, user);
  return { $gt: afterInstance === null ? `${prefix}:` : `${prefix}:${afterInstance}$`, $lt: `${prefix};` };
}

/**
 * The ids of one user's grants on instances of one type (every role), as userGrantIds reads them:
 * after `<prefix>:<type>:` and before `<prefix>:<type>;`. Another type that starts with this one
 * continues with a character of `[A-Za-z0-9_-]`, below ':' or above ';', so it falls outside.
 */
export function typeGrantIds(environmentId: string, user: string, type: string): Range {
  const prefix = userPrefix(environmentId, user);
  return { $gt: `${prefix}:${type}:`, $lt: `${prefix}:${type};` };
}

/** The ids of one user's grants on one instance (every role), as userGrantIds reads them. */
export function instanceGrantIds(environmentId: string, user: string, instance: string): Range {
  const prefix = userPrefix(environmentId, user);
  return { $gt: `${prefix}:${instance}#`, $lt: `${prefix}:${instance}$` };
}

/** A range of grant ids as the grant store reads it (GrantStore.userRange): both bounds exclusive. */
export function idRange(range: Range): { after: string; before: string } {
  return { after: String(range.$gt), before: String(range.$lt) };
}

/** The instance part of a grant id: after the hash (base64url, no `:`), before the role (keys hold no `#`). */
export function instanceOfGrantId(id: string): string {
  return id.slice(id.indexOf(':') + 1, id.lastIndexOf('#'));
}

/** The hashed (environment, user) part, remembered: a fan-out computes it for every grant of one user. */
const userPrefixes = new Map<string, string>();
function userPrefix(environmentId: string, user: string): string {
  const key = `${environmentId}\u0000${user}`;
  let prefix = userPrefixes.get(key);
  if (prefix === undefined) {
    if (userPrefixes.size >= 10_000) userPrefixes.clear();
    prefix = hash('sha1', key, 'base64url').slice(0, 22);
    userPrefixes.set(key, prefix);
  }
  return prefix;
}

/** `type:key` → type (the key may itself contain ':'). */
export function typeOf(instance: string): string {
  const colon = instance.indexOf(':');
  return colon < 0 ? instance : instance.slice(0, colon);
}

export const sameRule = (a: DerivationRule, b: DerivationRule): boolean =>
  a.onResource === b.onResource && a.role === b.role && a.relation === b.relation;

/** The same rule of the same role. */
export const sameEntry = (a: RuleEntry, b: RuleEntry): boolean =>
  a.resource === b.resource && a.role === b.role && sameRule(a.rule, b.rule);

/** Whether a rule that starts from a holder's role carries it along `edge`: the rule's relation, onto an instance of the type it grants on. */
export const carriesAlong = (entry: RuleEntry, edge: EdgeDoc): boolean =>
  entry.rule.relation === edge.relation && entry.resource === typeOf(edge.object);
