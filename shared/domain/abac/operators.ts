import type { Operator } from './conditions';
import { describeValue, jsonEquals, kindOf, type ValueKind } from './values';

/** The outcome of one comparison: matched, or not and why when a value was absent or of the wrong kind. */
export type Outcome = { matched: true } | { matched: false; reason?: string };

/**
 * What each operator accepts: the kinds of the attribute, and of the operand
 * (`same`: the attribute's own kind). Shared by evaluation (a value of another
 * kind is a non-match with a reason) and by the write-time check against the
 * attribute schemas (a literal of another kind is refused).
 */
export interface OperatorSignature {
  attribute: readonly ValueKind[];
  operand: readonly ValueKind[] | 'same';
}

const scalar: readonly ValueKind[] = ['bool', 'number', 'string'];
const anyValue: readonly ValueKind[] = ['bool', 'number', 'string', 'array', 'object'];

export const signatures: Record<Operator, OperatorSignature> = {
  equals: { attribute: anyValue, operand: 'same' },
  'not-equals': { attribute: anyValue, operand: 'same' },
  'greater-than': { attribute: ['number'], operand: ['number'] },
  'greater-than-equals': { attribute: ['number'], operand: ['number'] },
  'less-than': { attribute: ['number'], operand: ['number'] },
  'less-than-equals': { attribute: ['number'], operand: ['number'] },
  contains: { attribute: ['string'], operand: ['string'] },
  array_contains: { attribute: ['array'], operand: [...scalar, 'object'] },
  array_subset: { attribute: ['array'], operand: ['array'] },
  array_superset: { attribute: ['array'], operand: ['array'] },
  array_intersect: { attribute: ['array'], operand: ['array'] },
  object_match: { attribute: ['object'], operand: ['object'] },
};

const includes = (list: unknown[], item: unknown) => list.some((x) => jsonEquals(x, item));

/** The comparison itself, once both sides have the kinds the signature asks for. */
const apply: { [O in Operator]: (attribute: never, operand: never) => Outcome } = {
  equals: (a: unknown, b: unknown) => result(jsonEquals(a, b)),
  'not-equals': (a: unknown, b: unknown) => result(!jsonEquals(a, b)),
  'greater-than': (a: number, b: number) => result(a > b),
  'greater-than-equals': (a: number, b: number) => result(a >= b),
  'less-than': (a: number, b: number) => result(a < b),
  'less-than-equals': (a: number, b: number) => result(a <= b),
  contains: (a: string, b: string) => result(a.includes(b)),
  array_contains: (a: unknown[], b: unknown) => result(includes(a, b)),
  // Permit: ["a","b"] array_subset ["a","b","c"]: the attribute is a subset of the operand.
  array_subset: (a: unknown[], b: unknown[]) => result(a.every((x) => includes(b, x))),
  array_superset: (a: unknown[], b: unknown[]) => result(b.every((x) => includes(a, x))),
  array_intersect: (a: unknown[], b: unknown[]) => result(a.some((x) => includes(b, x))),
  object_match: (a: Record<string, unknown>, b: Record<string, unknown>) => objectMatch(a, b),
};

const result = (matched: boolean): Outcome => (matched ? { matched } : { matched });

/**
 * `object_match`: the operand is `{"match": {"<field>": {"<operator>": <value>}}}`;
 * every listed field of the attribute's object must satisfy its comparisons.
 */
function objectMatch(attribute: Record<string, unknown>, operand: Record<string, unknown>): Outcome {
  const match = operand.match;
  if (typeof match !== 'object' || match === null || Array.isArray(match)) {
    return { matched: false, reason: 'object_match takes {"match": {field: {operator: value}}}' };
  }
  for (const [field, ops] of Object.entries(match as Record<string, unknown>)) {
    if (typeof ops !== 'object' || ops === null || Array.isArray(ops)) {
      return { matched: false, reason: `object_match field '${field}' takes {operator: value}` };
    }
    for (const [op, value] of Object.entries(ops as Record<string, unknown>)) {
      if (!(op in signatures)) return { matched: false, reason: `object_match field '${field}': unknown operator '${op}'` };
      const outcome = compare(op as Operator, attribute[field], value, `.${field}`);
      if (!outcome.matched) return outcome;
    }
  }
  return { matched: true };
}

/**
 * Compares an attribute's value with an operand. A value absent or of a kind
 * the operator does not take is a non-match that says so, never a throw.
 */
export function compare(operator: Operator, attribute: unknown, operand: unknown, label = ''): Outcome {
  const signature = signatures[operator];
  const attributeKind = kindOf(attribute);
  if (attributeKind === undefined || !signature.attribute.includes(attributeKind)) {
    return {
      matched: false,
      reason: `attribute${label} is ${describeValue(attribute)}; ${operator} takes ${signature.attribute.join(' or ')}`,
    };
  }
  const operandKind = kindOf(operand);
  const wanted = signature.operand === 'same' ? [attributeKind] : signature.operand;
  if (operandKind === undefined || !wanted.includes(operandKind)) {
    return {
      matched: false,
      reason: `operand${label} is ${describeValue(operand)}; ${operator} on ${attributeKind} takes ${wanted.join(' or ')}`,
    };
  }
  return apply[operator](attribute as never, operand as never);
}
