import { z } from 'zod';
import { operators, signatures, type Operator, type ValueKind } from '../../shared/domain/abac';
import { ValidationError } from '../../shared/errors';
import { DOCUMENTED_AS, jsonDepth, MAX_JSON_DEPTH, MAX_JSON_FIELD_BYTES } from '../http/validation';

/**
 * Permit's condition JSON as a request schema, so the API document says what
 * conditions parse (shared/domain/abac/parse.ts refuses the same things, with
 * a message naming where): a node has `allOf` / `anyOf` (lists of nodes),
 * `not` (a node), and attribute keys (`user.`, `resource.`, `tenant.`,
 * `context.` then a name) mapping operators to operands; an operand is any
 * JSON but null, and an object holding `ref` is exactly `{"ref": "<attribute>"}`.
 */
const ATTRIBUTE_PATTERN = '^(user|resource|tenant|context)\\.[\\s\\S]+$';

const ref = {
  type: 'object',
  required: ['ref'],
  properties: { ref: { type: 'string', pattern: ATTRIBUTE_PATTERN } },
  additionalProperties: false,
};
const literal: Record<ValueKind, Record<string, unknown>> = {
  bool: { type: 'boolean' },
  number: { type: 'number' },
  string: { type: 'string' },
  array: { type: 'array' },
  object: { type: 'object', not: { required: ['ref'] } },
};
const allKinds: ValueKind[] = ['bool', 'number', 'string', 'array', 'object'];
/** Each operator's operand: a literal of a kind it compares (operators.ts, `signatures`), or a reference. */
const operandOf = (operator: Operator) => {
  const kinds = signatures[operator].operand;
  return { anyOf: [...(kinds === 'same' ? allKinds : kinds).map((k) => literal[k]), ref] };
};
const comparison = z.unknown().meta({
  [DOCUMENTED_AS]: {
    type: 'object',
    minProperties: 1,
    properties: Object.fromEntries(operators.map((o) => [o, operandOf(o)])),
    additionalProperties: false,
  },
});

export const conditionSchema: z.ZodType = z
  .object({
    get allOf() {
      return z.array(conditionSchema).optional();
    },
    get anyOf() {
      return z.array(conditionSchema).optional();
    },
    get not() {
      return conditionSchema.optional();
    },
  })
  .catchall(comparison)
  .meta({
    id: 'Condition',
    description: `Permit's condition JSON (docs/abac.md), at most ${MAX_JSON_DEPTH} levels deep and ${MAX_JSON_FIELD_BYTES} bytes`,
    propertyNames: { anyOf: [{ enum: ['allOf', 'anyOf', 'not'] }, { pattern: ATTRIBUTE_PATTERN }] },
  });

/**
 * Refuses (422) conditions nested deeper or larger than any free-form JSON
 * field may be, before the schema walks them (its recursion would not survive
 * an arbitrarily deep body).
 */
export function refuseUnboundedConditions(body: unknown): void {
  const conditions = typeof body === 'object' && body !== null ? (body as { conditions?: unknown }).conditions : undefined;
  if (conditions === undefined) return;
  const msg =
    jsonDepth(conditions, MAX_JSON_DEPTH) > MAX_JSON_DEPTH
      ? `must be nested at most ${MAX_JSON_DEPTH} levels deep`
      : Buffer.byteLength(JSON.stringify(conditions) ?? '', 'utf8') > MAX_JSON_FIELD_BYTES
        ? `must be at most ${MAX_JSON_FIELD_BYTES} bytes of JSON`
        : undefined;
  if (msg) throw new ValidationError([{ loc: ['body', 'conditions'], msg, type: 'too_big' }]);
}
