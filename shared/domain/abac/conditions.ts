/**
 * Permit's condition language, as a tree. Permit writes conditions as JSON:
 * `{"allOf": [...]}`, `{"anyOf": [...]}`, `{"not": {...}}`, and leaves
 * `{"user.age": {"greater-than": 18}}` whose key is an attribute path
 * (`user.`, `resource.`, `tenant.` or `context.` then the attribute's name)
 * and whose value maps an operator to its operand: a literal, or
 * `{"ref": "user.email"}` to compare with another attribute.
 *
 * The web console's condition builder imports this module too (its list of
 * operators), so it stays browser-safe: it imports nothing, which
 * .dependency-cruiser.cjs enforces.
 */

export const subjects = ['user', 'resource', 'tenant', 'context'] as const;
export type Subject = (typeof subjects)[number];

/** An attribute reference: `user.age` is {subject: 'user', name: 'age'}. */
export interface AttributePath {
  subject: Subject;
  name: string;
}

export const operators = [
  'equals',
  'not-equals',
  'greater-than',
  'greater-than-equals',
  'less-than',
  'less-than-equals',
  'contains',
  'array_contains',
  'array_subset',
  'array_superset',
  'array_intersect',
  'object_match',
] as const;
export type Operator = (typeof operators)[number];

export type Operand = { kind: 'value'; value: unknown } | { kind: 'ref'; path: AttributePath };

export type Condition =
  | { kind: 'allOf'; of: Condition[] }
  | { kind: 'anyOf'; of: Condition[] }
  | { kind: 'not'; of: Condition }
  | { kind: 'compare'; attribute: AttributePath; operator: Operator; operand: Operand };

export const pathText = (path: AttributePath) => `${path.subject}.${path.name}`;

export function parsePath(text: string): AttributePath | undefined {
  const dot = text.indexOf('.');
  if (dot <= 0 || dot === text.length - 1) return undefined;
  const subject = text.slice(0, dot);
  if (!(subjects as readonly string[]).includes(subject)) return undefined;
  return { subject: subject as Subject, name: text.slice(dot + 1) };
}

export const isOperator = (text: string): text is Operator => (operators as readonly string[]).includes(text);
