import type { AbacInputs } from '../../grant-queries/set-rules';
import { DEFAULT_TENANT, type CheckRequest, type ResourceRef } from '../../grant-queries/types';
import { abacInputs } from './abac-inputs';
import type { PartialEvaluation } from './authzen-schemas';

type Properties = Record<string, unknown> | null | undefined;
type Entity = { properties?: Properties };

/** The resource as the grant queries name it: `type:id` (`type` alone without an id) in the tenant `properties.tenant` (else `default`). */
export function resourceRef(resource: { type: string; id?: string | null; properties?: Properties }): ResourceRef {
  const tenant = resource.properties?.tenant;
  return { type: resource.type, key: resource.id ?? null, tenant: typeof tenant === 'string' && tenant !== '' ? tenant : DEFAULT_TENANT };
}

/**
 * What set rules (ABAC) read from an AuthZEN question, as `/allowed` reads its own (abac-inputs.ts):
 * `subject.properties` are the user's attributes sent with the check (`user.*`, merged over the
 * stored user's), `resource.properties` the resource's (`resource.*`), and `context` the context
 * (`context.*`). The condition language has no `action.*`: the action's properties are part of
 * the context (`context.<name>`), the request's `context` winning on a name both hold (as
 * `/allowed`'s top-level `context` wins over Permit's `resource.context`).
 */
export function authzenAbacInputs(question: {
  subject?: Entity | null;
  action?: Entity | null;
  resource?: Entity | null;
  context?: Properties;
}): AbacInputs | undefined {
  return abacInputs({
    user: question.subject?.properties,
    resource: question.resource?.properties,
    context: { ...(question.action?.properties ?? {}), ...(question.context ?? {}) },
  });
}

/** A complete AuthZEN question as the check `/allowed` would make of the same attributes. */
export function checkOf(question: {
  subject: { id: string; properties?: Properties };
  action: { name: string; properties?: Properties };
  resource: { type: string; id: string; properties?: Properties };
  context?: Properties;
}): CheckRequest {
  const check: CheckRequest = { user: question.subject.id, action: question.action.name, resource: resourceRef(question.resource) };
  const abac = authzenAbacInputs(question);
  return abac ? { ...check, abac } : check;
}

/** One evaluation of `/access/v1/evaluations` with the defaults filled in: its check, or the members it still lacks (`resource.id`). */
export type MergedEvaluation = { ok: true; check: CheckRequest } | { ok: false; missing: string[] };

/**
 * An evaluation over the request's defaults: each entity it names replaces the default whole,
 * except for the required members it leaves out, which the default gives (`{"id": "r1"}` over
 * `{"type": "record"}`); its `context` replaces the default context. What is still missing makes
 * it an evaluation-level error (a `false` decision saying why), not a refused request.
 */
export function mergedEvaluation(defaults: PartialEvaluation, own: PartialEvaluation): MergedEvaluation {
  const subject = merged(defaults.subject, own.subject, ['type', 'id']);
  const action = merged(defaults.action, own.action, ['name']);
  const resource = merged(defaults.resource, own.resource, ['type', 'id']);
  const missing = [
    ...missingOf('subject', subject, ['type', 'id']),
    ...missingOf('action', action, ['name']),
    ...missingOf('resource', resource, ['type', 'id']),
  ];
  if (missing.length > 0 || !subject?.id || !action?.name || !resource?.type || !resource.id) return { ok: false, missing };
  const context = own.context ?? defaults.context;
  return {
    ok: true,
    check: checkOf({
      subject: { id: subject.id, properties: subject.properties },
      action: { name: action.name, properties: action.properties },
      resource: { type: resource.type, id: resource.id, properties: resource.properties },
      context,
    }),
  };
}

function merged<E extends Record<string, unknown>>(
  fallback: E | null | undefined,
  own: E | null | undefined,
  required: string[],
): E | undefined {
  if (own === null || own === undefined) return fallback ?? undefined;
  if (fallback === null || fallback === undefined) return own;
  const out: Record<string, unknown> = { ...own };
  for (const key of required) if (out[key] === undefined || out[key] === null) out[key] = fallback[key];
  return out as E;
}

function missingOf(entity: string, value: Record<string, unknown> | undefined, required: string[]): string[] {
  if (value === undefined) return [entity];
  return required.filter((key) => typeof value[key] !== 'string' || value[key] === '').map((key) => `${entity}.${key}`);
}
