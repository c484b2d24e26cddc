import { isOperator, parsePath, type Condition, type Operand } from './conditions';

/** Why a condition document cannot be read: where (a JSON path from `conditions`) and what. */
export interface ConditionProblem {
  at: string;
  message: string;
}

export type ParseResult = { ok: true; condition: Condition } | { ok: false; problems: ConditionProblem[] };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads Permit's condition JSON into a Condition tree, collecting every
 * problem rather than stopping at the first. `{}` (Permit's default) is an
 * empty allOf: it matches everything, as an empty conjunction does.
 * Several keys in one object are a conjunction (Permit's UI writes one key per
 * object, but JSON allows more and an AND is what a reader expects).
 */
export function parseConditions(json: unknown): ParseResult {
  const problems: ConditionProblem[] = [];
  const condition = parseNode(json, 'conditions', problems);
  return problems.length === 0 ? { ok: true, condition } : { ok: false, problems };
}

function parseNode(json: unknown, at: string, problems: ConditionProblem[]): Condition {
  if (!isPlainObject(json)) {
    problems.push({ at, message: 'a condition must be an object' });
    return { kind: 'allOf', of: [] };
  }
  const parts: Condition[] = [];
  for (const [key, value] of Object.entries(json)) {
    const here = `${at}.${key}`;
    if (key === 'allOf' || key === 'anyOf') {
      if (!Array.isArray(value)) {
        problems.push({ at: here, message: `${key} takes a list of conditions` });
        continue;
      }
      parts.push({ kind: key, of: value.map((item, i) => parseNode(item, `${here}[${i}]`, problems)) });
    } else if (key === 'not') {
      parts.push({ kind: 'not', of: parseNode(value, here, problems) });
    } else {
      parts.push(...parseLeaf(key, value, here, problems));
    }
  }
  return parts.length === 1 ? parts[0]! : { kind: 'allOf', of: parts };
}

function parseLeaf(key: string, value: unknown, at: string, problems: ConditionProblem[]): Condition[] {
  const attribute = parsePath(key);
  if (!attribute) {
    problems.push({ at, message: `'${key}' is neither allOf, anyOf, not nor an attribute (user.*, resource.*, tenant.*, context.*)` });
    return [];
  }
  if (!isPlainObject(value) || Object.keys(value).length === 0) {
    problems.push({ at, message: `'${key}' takes an object of operator to operand, e.g. {"equals": "x"}` });
    return [];
  }
  const out: Condition[] = [];
  for (const [op, raw] of Object.entries(value)) {
    if (!isOperator(op)) {
      problems.push({ at: `${at}.${op}`, message: `unknown operator '${op}'` });
      continue;
    }
    const operand = parseOperand(raw, `${at}.${op}`, problems);
    if (operand) out.push({ kind: 'compare', attribute, operator: op, operand });
  }
  return out;
}

function parseOperand(raw: unknown, at: string, problems: ConditionProblem[]): Operand | undefined {
  if (isPlainObject(raw) && 'ref' in raw) {
    const path = typeof raw.ref === 'string' ? parsePath(raw.ref) : undefined;
    if (!path || Object.keys(raw).length !== 1) {
      problems.push({ at, message: 'a reference is {"ref": "<user|resource|tenant|context>.<attribute>"}' });
      return undefined;
    }
    return { kind: 'ref', path };
  }
  if (raw === null || raw === undefined) {
    problems.push({ at, message: 'an operand cannot be null' });
    return undefined;
  }
  return { kind: 'value', value: raw };
}
