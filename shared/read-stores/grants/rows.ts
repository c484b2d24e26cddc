import { instanceOfGrantId, type GrantDoc, type RulesDoc } from '../../read-models/grants/model';

/**
 * A grant as every engine stores it: a field per column (MongoDB keys it by `_id` instead of `id`),
 * its support (`reason`) as fields of its own, short: an assignment's id, or a derivation's tuple id
 * and rule. The rest of a derivation is what the grant's own fields say: its parent is `from_grant`,
 * the tuple's subject the instance of that grant, its object the grant's instance, its relation the
 * rule's (a rule derives along tuples of its relation only). A fan-out writes a row per derived
 * role, so the rows hold no JSON and nothing twice.
 */
export interface GrantRecord {
  id: string;
  environment_id: string;
  user: string;
  instance: string;
  resource: string;
  role: string;
  tenant: string;
  from_grant: string | null;
  /** The assignment of a direct grant; null for a derived one. */
  assignment_id: string | null;
  /** A derived grant's tuple and rule; null for a direct one. */
  tuple_id: string | null;
  rule_on_resource: string | null;
  rule_role: string | null;
  rule_relation: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function recordOf(grant: GrantDoc): GrantRecord {
  const reason = grant.reason;
  const derived = reason.kind === 'derivation' ? reason : null;
  return {
    id: grant.id,
    environment_id: grant.environment_id,
    user: grant.user,
    instance: grant.instance,
    resource: grant.resource,
    role: grant.role,
    tenant: grant.tenant,
    from_grant: grant.from_grant ?? null,
    assignment_id: reason.kind === 'assignment' ? reason.assignment_id : null,
    tuple_id: derived?.tuple.id ?? null,
    rule_on_resource: derived?.rule.onResource ?? null,
    rule_role: derived?.rule.role ?? null,
    rule_relation: derived?.rule.relation ?? null,
    expires_at: grant.expires_at ?? null,
    created_at: grant.created_at,
    updated_at: grant.updated_at,
  };
}

export function grantOfRecord(record: GrantRecord): GrantDoc {
  const from = record.from_grant ?? null;
  return {
    id: record.id,
    environment_id: record.environment_id,
    user: record.user,
    instance: record.instance,
    resource: record.resource,
    role: record.role,
    tenant: record.tenant,
    from_grant: from,
    reason:
      record.tuple_id === null || record.tuple_id === undefined || from === null
        ? { kind: 'assignment', assignment_id: record.assignment_id ?? '' }
        : {
            kind: 'derivation',
            from_grant: from,
            tuple: { id: record.tuple_id, subject: instanceOfGrantId(from), relation: record.rule_relation!, object: record.instance },
            rule: { onResource: record.rule_on_resource!, role: record.rule_role!, relation: record.rule_relation! },
          },
    expires_at: record.expires_at ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The SQL engines' columns: the record's fields, in the grants table's order. */
export const GRANT_COLUMNS = [
  'id',
  'environment_id',
  'user',
  'instance',
  'resource',
  'role',
  'tenant',
  'from_grant',
  'assignment_id',
  'tuple_id',
  'rule_on_resource',
  'rule_role',
  'rule_relation',
  'expires_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof GrantRecord>;

/** The columns as a select list or an insert's names (`user` quoted: PostgreSQL reserves it). */
export const GRANT_COLUMN_LIST = GRANT_COLUMNS.map((column) => (column === 'user' ? '"user"' : column)).join(', ');

/** The row's values, in GRANT_COLUMNS' order. */
export function grantRow(grant: GrantDoc): unknown[] {
  const record = recordOf(grant);
  return GRANT_COLUMNS.map((column) => record[column]);
}

/** The grant of a row read as `SELECT <GRANT_COLUMNS>` (values in that order; built at once, the checks read many). */
export function grantOfRow(row: unknown[]): GrantDoc {
  const [
    id,
    environmentId,
    user,
    instance,
    resource,
    role,
    tenant,
    from,
    assignmentId,
    tupleId,
    onResource,
    ruleRole,
    relation,
    end,
    created,
    updated,
  ] = row as Array<string | null>;
  return {
    id: id!,
    environment_id: environmentId!,
    user: user!,
    instance: instance!,
    resource: resource!,
    role: role!,
    tenant: tenant!,
    from_grant: from ?? null,
    reason:
      tupleId === null || tupleId === undefined || from === null || from === undefined
        ? { kind: 'assignment', assignment_id: assignmentId ?? '' }
        : {
            kind: 'derivation',
            from_grant: from,
            tuple: { id: tupleId, subject: instanceOfGrantId(from), relation: relation!, object: instance! },
            rule: { onResource: onResource!, role: ruleRole!, relation: relation! },
          },
    expires_at: end ?? null,
    created_at: created!,
    updated_at: updated!,
  };
}

/** An environment's rules as every engine stores them: the document without its id, as JSON text. */
export function rulesText(rules: RulesDoc): string {
  const { id: _id, ...rest } = rules;
  return JSON.stringify(rest);
}

export function rulesOfText(environmentId: string, text: string): RulesDoc {
  return { id: environmentId, ...(JSON.parse(text) as Omit<RulesDoc, 'id'>) };
}

/** Keeps the grants `narrowing` admits. */
export function narrowed(
  grants: GrantDoc[],
  narrowing: { roles?: readonly string[]; tenants?: readonly string[]; resources?: readonly string[] } = {},
): GrantDoc[] {
  const { roles, tenants, resources } = narrowing;
  if (!roles && !tenants && !resources) return grants;
  return grants.filter(
    (g) => (!roles || roles.includes(g.role)) && (!tenants || tenants.includes(g.tenant)) && (!resources || resources.includes(g.resource)),
  );
}

/** Byte order of ASCII strings (the engines' order for ids, users and roles). */
export const byBytes = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
