/** The shapes of the public API's answers that the console reads (the API returns more fields). */

export interface KeyScope {
  organization_id: string;
  project_id?: string | null;
  environment_id?: string | null;
}

export interface Project {
  id: string;
  key: string;
  name: string;
}

export interface Environment {
  id: string;
  key: string;
  name: string;
  project_id: string;
  created_at: string;
}

/** An API key as listed (`GET /v2/api-key`): never its secret. */
export interface ApiKeyInfo {
  id: string;
  name: string | null;
  object_type: 'org' | 'project' | 'env';
  environment_id: string | null;
}

export interface Resource {
  id: string;
  key: string;
  name: string;
  actions: Record<string, { key?: string; name?: string }>;
  relations?: Record<string, { resource: string }>;
}

export interface Derivation {
  role: string;
  on_resource: string;
  linked_by_relation: string;
}

export interface Role {
  id: string;
  key: string;
  name: string;
  permissions: string[];
  extends?: string[];
  resource?: string;
  granted_to?: { users_with_role: Derivation[] };
}

export interface Relation {
  key: string;
  name: string;
  subject_resource: string;
  object_resource: string;
}

export interface Tenant {
  id: string;
  key: string;
  attributes?: Record<string, unknown>;
  name: string;
  created_at: string;
}

export interface User {
  id: string;
  key: string;
  attributes?: Record<string, unknown>;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
}

export interface Instance {
  id: string;
  key: string;
  attributes?: Record<string, unknown>;
  resource: string;
  tenant: string;
  created_at: string;
}

export interface Assignment {
  id: string;
  user: string;
  role: string;
  tenant: string;
  resource_instance?: string | null;
  created_at: string;
  /** When the assignment ends (docs/expiring-access.md); null: never. */
  expires_at?: string | null;
}

export interface Tuple {
  id: string;
  subject: string;
  relation: string;
  object: string;
  tenant: string;
  created_at: string;
  /** When the tuple ends; null: never. */
  expires_at?: string | null;
}

/** A list with `include_total_count=true`. */
export interface Counted<T> {
  data: T[];
  total_count: number;
  page_count: number;
}

/** A condition set (`GET /v2/schema/{proj}/{env}/condition_sets`): a user set or resource set and its conditions. */
export interface ConditionSet {
  id: string;
  key: string;
  name: string;
  type: 'userset' | 'resourceset';
  resource_id: string | null;
  conditions: unknown;
}

/** A set rule (`GET /v2/facts/{proj}/{env}/set_rules`): the user set gets the permission on the resource set. */
export interface SetRule {
  id: string;
  key: string;
  user_set: string;
  permission: string;
  resource_set: string;
}

/** One link of a derivation chain, the assignment first (`/allowed` with `explain`). */
export type ChainStep =
  | { step: 'role_assignment'; assignment_id: string; user: string; role: string; resource_instance: string; tenant: string }
  | {
      step: 'role_derivation';
      role: string;
      resource_instance: string;
      from: { role: string; resource_instance: string };
      tuple: { subject: string; relation: string; object: string };
      rule: Derivation;
    }
  | { step: 'missing_support'; grant_id: string };

/**
 * What permits the action. `kind` may grow (the API adds grant kinds; a console
 * older than the API must still draw the rest), so every reader has a case for
 * a kind it does not know.
 */
export type GrantedBy =
  | { kind: 'resource_role'; role: string; resource_instance: string; permissions: string[]; chain: ChainStep[] }
  | { kind: 'tenant_role'; role: string; tenant: string; permission: string; assignment_id: string }
  | { kind: 'set_rule'; set_rule: string; user_set: string; permission: string; resource_set: string };

/** One set rule (ABAC) as the check evaluated it: which sets matched, and each comparison of their conditions. */
export interface SetRuleTrace {
  set_rule: string;
  user_set: string;
  permission: string;
  resource_set: string;
  matched: boolean;
  user_set_matched: boolean;
  resource_set_matched: boolean;
  conditions: Array<{ set: string; condition: string; matched: boolean; reason?: string }>;
}

export interface Explanation {
  decision: 'allow' | 'deny';
  summary: string;
  resource: { type: string; key: string | null; tenant: string; instance_found: boolean };
  granted_by: GrantedBy[];
  roles_held: Array<{ kind: 'resource_role' | 'tenant_role'; role: string; permissions: string[] }>;
  /** Absent from answers of a service older than set rules. */
  set_rules?: SetRuleTrace[];
}

export interface CheckAnswer {
  allow: boolean;
  explanation?: Explanation;
}

/** An audit log entry (`GET /v2/events/{proj}/{env}`, and each message of its stream). */
export interface AuditEntry {
  position: number;
  stream_version: number;
  type: string;
  timestamp: string;
  actor: { type: 'api_key' | 'system' | 'task'; id: string | null; name?: string | null };
  request_id: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  audit_metadata: unknown;
  /** The OpenTelemetry trace of the request that wrote it, when that was traced (docs/tracing.md). */
  trace_id?: string;
  data: Record<string, unknown>;
}

export interface EventsPage {
  data: AuditEntry[];
  next_after: number | null;
  head_position: number;
}

export interface AttributeChange {
  of: 'user' | 'tenant' | 'resource';
  key: string;
  attribute: string;
  before?: unknown;
  after?: unknown;
}

/** `POST /allowed/history`. */
export interface DecisionChange {
  position: number;
  time: string;
  allow: boolean;
  decision_changed: boolean;
  roles_gained: GrantedBy[];
  roles_lost: GrantedBy[];
  /** The event as the audit log shows it (a service before the two were aligned sent `actor` as the key id). */
  event: Omit<AuditEntry, 'actor'> & { actor: AuditEntry['actor'] | string | null };
  cascade_of?: { type: string; position: number; data: unknown };
  cause: {
    summary: string;
    links?: Array<{
      what: string;
      role: string;
      on: string;
      side: 'gained' | 'lost';
      from?: { role: string; resource_instance: string };
      via?: Array<{ relation: string; resource_instance: string }>;
    }>;
  };
  /** The attributes the event changed, old → new (absent: not set); absent from a service older than it. */
  attribute_changes?: AttributeChange[];
  explanation: Explanation;
}

export interface DecisionHistory {
  since: { position: number; time?: string };
  until: { position: number; time?: string };
  initial: { position: number; allow: boolean; explanation: Explanation };
  changes: DecisionChange[];
  evaluated: number;
}

export interface CopyTask {
  task_id: string;
  status: 'processing' | 'success' | 'failure' | 'cancelled';
  result: Environment | null;
  error: { error_code: string; title: string; message: string } | null;
  progress?: { source_events_total: number; source_events_read: number; events_copied: number };
}
