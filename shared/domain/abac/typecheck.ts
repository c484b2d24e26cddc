import { pathText, type AttributePath, type Condition } from './conditions';
import { signatures } from './operators';
import type { ConditionProblem } from './parse';
import { kindOf, kindOfType, type ValueKind } from './values';

/** The declared type of an attribute, or undefined when no schema says (then nothing is checked). */
export type AttributeTypeOf = (path: AttributePath) => string | undefined;

/**
 * Refuses comparisons that can never match given the attribute schemas: an
 * attribute whose declared type the operator does not take, a literal operand
 * of the wrong kind, a reference to an attribute of the wrong kind. Unknown
 * attributes and `json` ones are not checked (their values arrive untyped).
 */
export function checkTypes(condition: Condition, typeOf: AttributeTypeOf, at = 'conditions'): ConditionProblem[] {
  switch (condition.kind) {
    case 'allOf':
    case 'anyOf':
      return condition.of.flatMap((c, i) => checkTypes(c, typeOf, `${at}.${condition.kind}[${i}]`));
    case 'not':
      return checkTypes(condition.of, typeOf, `${at}.not`);
    case 'compare':
      return checkCompare(condition, typeOf, `${at}.${pathText(condition.attribute)}.${condition.operator}`);
  }
}

function checkCompare(c: Extract<Condition, { kind: 'compare' }>, typeOf: AttributeTypeOf, at: string): ConditionProblem[] {
  const signature = signatures[c.operator];
  const declared = typeOf(c.attribute);
  const attributeKind = declared === undefined ? undefined : kindOfType(declared);
  if (attributeKind !== undefined && !signature.attribute.includes(attributeKind)) {
    return [{ at, message: `${pathText(c.attribute)} is of type ${declared}; ${c.operator} compares ${signature.attribute.join(' or ')}` }];
  }
  const operandKind: ValueKind | undefined =
    c.operand.kind === 'value' ? kindOf(c.operand.value) : kindOfType(typeOf(c.operand.path) ?? 'json');
  if (operandKind === undefined) return [];
  const wanted = signature.operand === 'same' ? (attributeKind ? [attributeKind] : undefined) : signature.operand;
  if (wanted && !wanted.includes(operandKind)) {
    const what = c.operand.kind === 'value' ? `the value ${JSON.stringify(c.operand.value)}` : `${pathText(c.operand.path)}`;
    return [{ at, message: `${what} is ${operandKind}; ${c.operator} on ${pathText(c.attribute)} takes ${wanted.join(' or ')}` }];
  }
  return [];
}
