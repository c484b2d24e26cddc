/**
 * The policy editor's part of the public API: reading an environment's whole
 * model, and the edits the editor proposes as the HTTP calls they are, so the
 * page can show them before they are sent and send exactly what it showed.
 */
import { ApiError, seg, type Api } from './client';
import type { Derivation, Relation, Resource, Role } from './types';

/** A role as the API answers it (ResourceRole / Role), with the fields the editor reads. */
export interface PolicyRole extends Role {
  extends: string[];
  granted_to: { users_with_role: Derivation[]; when: { no_direct_roles_on_object?: boolean } };
}

export interface AttributeDef {
  key: string;
  type: string;
  description?: string | null;
}

export interface PolicyResource extends Omit<Resource, 'relations' | 'actions'> {
  description?: string | null;
  urn?: string | null;
  actions: Record<string, { key?: string; name?: string; description?: string | null }>;
  attributes: Record<string, AttributeDef>;
  roles: PolicyRole[];
  /** Relations whose object is this type (`/resources/{key}/relations`). */
  relations: Relation[];
}

export interface ConditionSet {
  id: string;
  key: string;
  name: string;
  type: 'userset' | 'resourceset';
  /** The resource type's id (resource sets only). */
  resource_id: string | null;
  conditions: unknown;
  parent_id: string | null;
}

export interface SetRule {
  key: string;
  user_set: string;
  permission: string;
  resource_set: string;
}

export interface PolicyModel {
  resources: PolicyResource[];
  topLevelRoles: PolicyRole[];
  conditionSets: ConditionSet[];
  setRules: SetRule[];
  userAttributes: AttributeDef[];
  /** Some list held more than the editor reads (PAGE × MAX_PAGES); the page says so. */
  truncated: boolean;
}

/** Where an environment's schema and facts are (`/v2/schema/{proj}/{env}`, `/v2/facts/{proj}/{env}`). */
export interface PolicyPaths {
  schema: string;
  facts: string;
}

const PAGE = 100;
const MAX_PAGES = 20;

/** Every page of a list (plain arrays and `{data}` pages alike), up to MAX_PAGES. */
async function allPages<T>(api: Api, path: string, signal: AbortSignal): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const body = await api.get<T[] | { data: T[] }>(path, { page, per_page: PAGE }, signal);
    const batch = Array.isArray(body) ? body : body.data;
    items.push(...batch);
    if (batch.length < PAGE) return { items, more: false };
  }
  return { items, more: true };
}

type ResourceAnswer = Resource & { attributes?: Record<string, AttributeDef>; roles?: Record<string, PolicyRole> };

/** The whole model of an environment, as the editor shows it. */
export async function loadPolicy(api: Api, paths: PolicyPaths, signal: AbortSignal): Promise<PolicyModel> {
  const { schema, facts } = paths;
  const [resources, topLevelRoles, conditionSets, setRules, userAttributes] = await Promise.all([
    allPages<ResourceAnswer>(api, `${schema}/resources`, signal),
    allPages<PolicyRole>(api, `${schema}/roles`, signal),
    allPages<ConditionSet>(api, `${schema}/condition_sets`, signal),
    allPages<SetRule>(api, `${facts}/set_rules`, signal),
    allPages<AttributeDef>(api, `${schema}/users/attributes`, signal),
  ]);
  // The built-in `__user` type holds the user attributes; it is edited as those, not as a type.
  const visible = resources.items.filter((r) => !r.key.startsWith('__'));
  const relations = await Promise.all(visible.map((r) => allPages<Relation>(api, `${schema}/resources/${seg(r.key)}/relations`, signal)));
  return {
    resources: visible.map((r, i) => ({
      ...r,
      attributes: r.attributes ?? {},
      roles: Object.values(r.roles ?? {}).sort((a, b) => a.key.localeCompare(b.key)),
      relations: relations[i]!.items,
    })),
    topLevelRoles: topLevelRoles.items,
    conditionSets: conditionSets.items,
    setRules: setRules.items,
    userAttributes: userAttributes.items,
    truncated: [resources, topLevelRoles, conditionSets, setRules, userAttributes, ...relations].some((l) => l.more),
  };
}

// ---- Edits -----------------------------------------------------------------

export type Method = 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** One HTTP call of an edit. */
export interface Call {
  method: Method;
  path: string;
  body?: unknown;
  /** The call that takes this one back: sent when a later call of the same edit is refused. */
  undo?: Call;
}

/** A change the editor proposes: its calls, and the object they change before → after (null: absent). */
export interface Edit {
  title: string;
  calls: Call[];
  before: unknown;
  after: unknown;
}

/**
 * The `X-Audit-Metadata` of an edit: `{"reason": …}`, or none without a
 * reason. Characters beyond ASCII go as JSON escapes (a header value is sent
 * as bytes; the escapes keep it ASCII and the server reads the same string).
 */
export function auditHeaders(reason: string): Record<string, string> {
  const text = reason.trim();
  if (text === '') return {};
  const json = JSON.stringify({ reason: text }).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return { 'x-audit-metadata': json };
}

/** An edit the API refused: the API's own error, the call it refused, and what became of the calls before it. */
export class EditRefused extends Error {
  constructor(
    readonly error: ApiError,
    readonly call: Call,
    /** Calls of this edit that were applied and could not be taken back (empty: nothing changed). */
    readonly leftApplied: Call[],
  ) {
    super(error.message, { cause: error });
  }
}

/**
 * Sends an edit's calls in order with the reason. When one is refused, the
 * calls before it are taken back (their `undo`, in reverse), so a refused
 * edit leaves the model as it was; what could not be taken back is named.
 * Answers the last call's `X-Event-Position`.
 */
export async function applyEdit(api: Api, edit: Edit, reason: string): Promise<number | null> {
  const headers = auditHeaders(reason);
  const sent: Call[] = [];
  let position: number | null = null;
  for (const call of edit.calls) {
    try {
      position = (await api.request(call.method, call.path, { body: call.body, headers })).position ?? position;
      sent.push(call);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const leftApplied: Call[] = [];
      for (const done of sent.reverse()) {
        if (!done.undo || !(await sendQuietly(api, done.undo, headers))) leftApplied.push(done);
      }
      throw new EditRefused(error, call, leftApplied);
    }
  }
  return position;
}

/** Sends a call, answering whether the API took it. */
async function sendQuietly(api: Api, call: Call, headers: Record<string, string>): Promise<boolean> {
  try {
    await api.request(call.method, call.path, { body: call.body, headers });
    return true;
  } catch {
    return false;
  }
}

/** The top-level fields whose value an edit changes, before → after. */
export function changedFields(before: unknown, after: unknown): Array<{ field: string; before: unknown; after: unknown }> {
  const object = (v: unknown): Record<string, unknown> =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const b = object(before);
  const a = object(after);
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return fields.filter((f) => JSON.stringify(b[f]) !== JSON.stringify(a[f])).map((field) => ({ field, before: b[field], after: a[field] }));
}
