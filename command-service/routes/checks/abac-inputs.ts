import { ValidationError } from '../../../shared/errors';
import type { AbacInputs } from '../../grant-queries/set-rules';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: Record<string, unknown> | undefined) => (v !== undefined && Object.keys(v).length > 0 ? v : undefined);

/**
 * What a check (already validated by its schema, which keeps only keys) sends
 * for set rules: `user.attributes`, `resource.attributes` and `context`
 * (top-level, and Permit's `resource.context`, merged). Attributes that are not
 * an object are refused (422) rather than dropped. Empty parts are left out, so
 * `{}` and nothing are the same question (and the same cache key).
 */
export function abacInputsOf(raw: unknown, loc: Array<string | number>): AbacInputs | undefined {
  if (!isObject(raw)) return undefined;
  const part = (value: unknown, where: string[]): Record<string, unknown> | undefined => {
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) throw new ValidationError([{ loc: [...loc, ...where], msg: 'must be a JSON object', type: 'dict_type' }]);
    return value;
  };
  const user = isObject(raw.user) ? part(raw.user.attributes, ['user', 'attributes']) : undefined;
  const resource = isObject(raw.resource) ? part(raw.resource.attributes, ['resource', 'attributes']) : undefined;
  const resourceContext = isObject(raw.resource) ? part(raw.resource.context, ['resource', 'context']) : undefined;
  const context = { ...(resourceContext ?? {}), ...(part(raw.context, ['context']) ?? {}) };
  return abacInputs({ user, resource, context });
}

/**
 * The inputs of a check for set rules, from the parts it sends (every check endpoint, `/allowed`
 * and AuthZEN alike, makes its question here): empty parts are left out, and a check that sends
 * nothing has no inputs, so `{}` and nothing are the same question (and the same cache key).
 */
export function abacInputs(parts: {
  user?: Record<string, unknown> | null | undefined;
  resource?: Record<string, unknown> | null | undefined;
  context?: Record<string, unknown> | null | undefined;
}): AbacInputs | undefined {
  const inputs: AbacInputs = {};
  const user = nonEmpty(parts.user ?? undefined);
  const resource = nonEmpty(parts.resource ?? undefined);
  const context = nonEmpty(parts.context ?? undefined);
  if (user) inputs.user = user;
  if (resource) inputs.resource = resource;
  if (context) inputs.context = context;
  return Object.keys(inputs).length > 0 ? inputs : undefined;
}
