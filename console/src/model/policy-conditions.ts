/**
 * The condition builder's rows ↔ Permit's condition JSON (docs/abac.md). The
 * builder says the common case, a list of comparisons all (or any) of which
 * hold: `{"allOf": [{"user.department": {"equals": "legal"}}, …]}`. Anything
 * else (`not`, nesting, several operators on one attribute) is edited as raw
 * JSON, and `toRows` says so by answering null.
 */

export interface ConditionRow {
  /** `user.department`, `resource.owner`, `tenant.plan`, `context.ip`. */
  attribute: string;
  operator: string;
  /** As typed: JSON when it parses (`5`, `true`, `["a"]`, `"5"`), a string otherwise. */
  value: string;
}

export type Combinator = 'allOf' | 'anyOf';

export interface BuiltConditions {
  combinator: Combinator;
  rows: ConditionRow[];
}

/** A typed value: JSON when it parses as JSON, the text itself otherwise (so `legal` is the string "legal"). */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The text a value is typed as: a plain string stays plain unless it would read back as something else. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') {
    const json = JSON.stringify(value);
    return parseValue(value) === value ? value : json;
  }
  return JSON.stringify(value);
}

/** The builder's conditions as the API takes them; no rows is `{}` (matches everything, Permit's default). */
export function toConditions(built: BuiltConditions): Record<string, unknown> {
  const rows = built.rows.filter((r) => r.attribute.trim() !== '');
  if (rows.length === 0) return {};
  return { [built.combinator]: rows.map((r) => ({ [r.attribute.trim()]: { [r.operator]: parseValue(r.value) } })) };
}

/** Conditions as builder rows, or null when they say more than a list of comparisons can. */
export function toRows(conditions: unknown): BuiltConditions | null {
  if (!conditions || typeof conditions !== 'object' || Array.isArray(conditions)) return null;
  const keys = Object.keys(conditions);
  if (keys.length === 0) return { combinator: 'allOf', rows: [] };
  const [combinator] = keys;
  if (keys.length !== 1 || (combinator !== 'allOf' && combinator !== 'anyOf')) return null;
  const list = (conditions as Record<string, unknown>)[combinator];
  if (!Array.isArray(list)) return null;
  const rows: ConditionRow[] = [];
  for (const leaf of list) {
    if (!leaf || typeof leaf !== 'object' || Array.isArray(leaf)) return null;
    const entries = Object.entries(leaf as Record<string, unknown>);
    if (entries.length !== 1) return null;
    const [attribute, comparison] = entries[0]!;
    if (attribute === 'allOf' || attribute === 'anyOf' || attribute === 'not') return null;
    if (!comparison || typeof comparison !== 'object' || Array.isArray(comparison)) return null;
    const ops = Object.entries(comparison as Record<string, unknown>);
    if (ops.length !== 1) return null;
    const [operator, value] = ops[0]!;
    rows.push({ attribute, operator, value: valueText(value) });
  }
  return { combinator, rows };
}

/** A one-line reading of conditions: `user.department equals "legal"`, joined by and/or; raw JSON otherwise. */
export function conditionsText(conditions: unknown): string {
  const built = toRows(conditions);
  if (!built) return JSON.stringify(conditions);
  if (built.rows.length === 0) return 'everything';
  const join = built.combinator === 'allOf' ? ' and ' : ' or ';
  return built.rows.map((r) => `${r.attribute} ${r.operator} ${JSON.stringify(parseValue(r.value))}`).join(join);
}
