import { evaluate, parseConditions, type AttributeBag, type ComparisonTrace, type Condition } from '../../shared/domain/abac';
import { ReadCache } from '../../shared/read-cache';
import type { ConditionSetDoc, ReadModels, SetRuleDoc, TenantDoc, UserDoc } from '../../shared/read-models/read-models';

/**
 * Set rules (ABAC) at check time: a rule grants `type:action` to the users of a
 * user set on the resources of a resource set. Attributes may arrive with the
 * check, so nothing is materialised: the environment's rules and sets are read
 * once per read-model position (cached like role permissions), and a check
 * whose permission no rule grants costs one map lookup.
 */

/** A condition set ready to evaluate: its own conditions and its ancestors', all of which must hold. */
interface CompiledSet {
  key: string;
  type: 'userset' | 'resourceset';
  conditions: Array<{ set: string; condition: Condition }>;
}

export interface AbacPolicy {
  /** `type:action` → the rules granting it. */
  rules: ReadonlyMap<string, SetRuleDoc[]>;
  sets: ReadonlyMap<string, CompiledSet>;
}

const EMPTY: AbacPolicy = { rules: new Map(), sets: new Map() };

/** Reads an environment's set rules and condition sets. */
export interface AbacPolicies {
  of(environmentId: string): Promise<AbacPolicy>;
}

export function storedAbacPolicies(rm: ReadModels): AbacPolicies {
  return {
    async of(environmentId) {
      const ruleDocs = await rm.setRules.find({ environment_id: environmentId });
      if (ruleDocs.length === 0) return EMPTY;
      const setDocs = await rm.conditionSets.find({ environment_id: environmentId });
      return compile(ruleDocs, setDocs);
    },
  };
}

export function cachedAbacPolicies(stored: AbacPolicies, position: () => number): AbacPolicies {
  const cache = new ReadCache<AbacPolicy>(position, 10_000);
  return { of: (environmentId) => cache.through(environmentId, () => stored.of(environmentId)) };
}

function compile(ruleDocs: SetRuleDoc[], setDocs: ConditionSetDoc[]): AbacPolicy {
  const rules = new Map<string, SetRuleDoc[]>();
  for (const rule of ruleDocs) rules.set(rule.permission, [...(rules.get(rule.permission) ?? []), rule]);
  const byKey = new Map(setDocs.map((s) => [s.key, s]));
  const sets = new Map<string, CompiledSet>();
  for (const doc of setDocs) {
    const conditions: CompiledSet['conditions'] = [];
    // Parents were checked acyclic when written; the bound guards a log written by an older version all the same.
    for (let at: ConditionSetDoc | undefined = doc, depth = 0; at && depth < setDocs.length; depth++) {
      const parsed = parseConditions(at.conditions);
      // Conditions were parsed when written; one that no longer parses matches nothing.
      conditions.push({ set: at.key, condition: parsed.ok ? parsed.condition : { kind: 'anyOf', of: [] } });
      at = at._parent === null ? undefined : byKey.get(at._parent);
    }
    sets.set(doc.key, { key: doc.key, type: doc.type, conditions });
  }
  return { rules, sets };
}

/** What a check brings for set rules: attributes sent with it (merged over the stored ones) and its context. */
export interface AbacInputs {
  user?: Record<string, unknown>;
  resource?: Record<string, unknown>;
  context?: Record<string, unknown>;
}

/** One set rule as a check evaluated it (explain). */
export interface SetRuleTrace {
  set_rule: string;
  user_set: string;
  permission: string;
  resource_set: string;
  matched: boolean;
  user_set_matched: boolean;
  resource_set_matched: boolean;
  /** Each comparison of the user set's conditions (and its ancestors'), then the resource set's, as evaluated. */
  conditions: Array<ComparisonTrace & { set: string }>;
}

export interface SetRuleSubject {
  environmentId: string;
  user: string;
  type: string;
  key: string | null;
  tenant: string | null;
  inputs: AbacInputs;
}

/** Whether one rule grants, over a bag of attributes and the user's tenant roles there; the comparisons go to `trace`. */
export function ruleGrants(
  policy: AbacPolicy,
  rule: SetRuleDoc,
  facts: { bag: AttributeBag; tenantRoles: ReadonlySet<string> },
  trace: SetRuleTrace['conditions'],
): { user: boolean; resource: boolean } {
  const user = rule._user_set_is_role ? facts.tenantRoles.has(rule.user_set) : inSet(policy.sets.get(rule.user_set), facts.bag, trace);
  const resource =
    user &&
    (rule._resource_set_is_resource
      ? rule.resource_set === facts.bag.resource.type
      : inSet(policy.sets.get(rule.resource_set), facts.bag, trace));
  return { user, resource };
}

/**
 * Evaluates the set rules granting `type:action` for one check. `explain`
 * evaluates every rule (to say why each failed); otherwise it stops at the
 * first that grants. Attribute values of the wrong kind are non-matches with a
 * reason (the evaluator never throws).
 */
export async function evaluateSetRules(
  rm: ReadModels,
  policies: AbacPolicies,
  subject: SetRuleSubject,
  action: string,
  explain: boolean,
): Promise<{ allow: boolean; traces: SetRuleTrace[]; until?: string }> {
  const policy = await policies.of(subject.environmentId);
  const rules = policy.rules.get(`${subject.type}:${action}`);
  if (!rules || rules.length === 0) return { allow: false, traces: [] };
  const facts = await factsOf(rm, subject);
  const traces: SetRuleTrace[] = [];
  let allow = false;
  for (const rule of rules) {
    const conditions: SetRuleTrace['conditions'] = [];
    const outcome = ruleGrants(policy, rule, facts, conditions);
    const matched = outcome.user && outcome.resource;
    allow ||= matched;
    traces.push({
      set_rule: rule.key,
      user_set: rule.user_set,
      permission: rule.permission,
      resource_set: rule.resource_set,
      matched,
      user_set_matched: outcome.user,
      resource_set_matched: outcome.resource,
      conditions,
    });
    if (matched && !explain) break;
  }
  return { allow, traces, ...(facts.until === undefined ? {} : { until: facts.until }) };
}

function inSet(set: CompiledSet | undefined, bag: AttributeBag, trace: SetRuleTrace['conditions']): boolean {
  if (!set) return false;
  for (const { set: key, condition } of set.conditions) {
    const result = evaluate(condition, bag);
    trace.push(...result.trace.map((t) => ({ ...t, set: key })));
    if (!result.matched) return false;
  }
  return true;
}

/** Permit's built-in user fields beside its attributes (`user.key`, `user.email`, …), then what the check sends. */
export function userAttributes(key: string, user: UserDoc | null, sent?: Record<string, unknown>): Record<string, unknown> {
  return {
    ...(user?.attributes ?? {}),
    key,
    ...(user ? { email: user.email, first_name: user.first_name, last_name: user.last_name } : {}),
    ...(sent ?? {}),
  };
}

/** `resource.type`, `resource.key`, `resource.tenant` beside the stored instance's attributes, then what the check sends. */
export function resourceAttributes(
  type: string,
  key: string | null,
  tenant: string,
  stored: Record<string, unknown> | undefined,
  sent?: Record<string, unknown>,
): Record<string, unknown> {
  return { ...(stored ?? {}), type, ...(key === null ? {} : { key }), tenant, ...(sent ?? {}) };
}

export const tenantAttributes = (key: string, tenant: TenantDoc | null): Record<string, unknown> => ({
  ...(tenant?.attributes ?? {}),
  key,
});

/**
 * The attributes a check is evaluated over: the stored user, tenant and
 * instance (their attributes and Permit's built-in fields), with what the
 * check sends merged over them; and the user's tenant roles in the resource's
 * tenant (for rules whose user set is a role).
 */
async function factsOf(rm: ReadModels, s: SetRuleSubject): Promise<{ bag: AttributeBag; tenantRoles: Set<string>; until?: string }> {
  const env = s.environmentId;
  const [user, instance] = await Promise.all([
    rm.users.findOne({ environment_id: env, key: s.user }),
    s.key === null ? null : rm.instances.findOne({ environment_id: env, resource: s.type, key: s.key }),
  ]);
  const tenantKey = instance?.tenant ?? s.tenant ?? 'default';
  const [tenant, assignments] = await Promise.all([
    rm.tenants.findOne({ environment_id: env, key: tenantKey }),
    rm.assignments.find(
      { environment_id: env, user: s.user, tenant: tenantKey, resource_instance: null },
      { fields: ['role', 'expires_at'] },
    ),
  ]);
  const bag: AttributeBag = {
    user: userAttributes(s.user, user, s.inputs.user),
    resource: resourceAttributes(s.type, s.key, tenantKey, instance?.attributes, s.inputs.resource),
    tenant: tenantAttributes(tenantKey, tenant),
    context: s.inputs.context ?? {},
  };
  // The first end among the roles read: an answer that used them holds no longer (docs/expiring-access.md).
  const ends = assignments.flatMap((a) => (a.expires_at ? [a.expires_at] : [])).sort();
  return { bag, tenantRoles: new Set(assignments.map((a) => a.role)), ...(ends.length > 0 ? { until: ends[0] } : {}) };
}
