/**
 * A condition set's `conditions` (Permit's JSON: `allOf`, `anyOf`, `not`,
 * leaves `{"user.department": {"equals": "legal"}}`, docs/abac.md) in words:
 * `user.department equals "legal" and (…or…)`. What it does not recognise is
 * shown as JSON, never dropped.
 */
export function conditionText(c: unknown): string {
  const text = expression(c);
  // One group at the top needs no brackets.
  return text.startsWith('(') && text.endsWith(')') && balanced(text.slice(1, -1)) ? text.slice(1, -1) : text;
}

/** A condition with each group of several parts in brackets. */
function expression(c: unknown): string {
  if (c === null || typeof c !== 'object' || Array.isArray(c)) return JSON.stringify(c);
  const entries = Object.entries(c as Record<string, unknown>);
  if (entries.length === 0) return 'always';
  const parts = entries.map(([key, value]) => {
    if ((key === 'allOf' || key === 'anyOf') && Array.isArray(value)) {
      if (value.length === 0) return key === 'allOf' ? 'always' : 'never';
      const inner = value.map(expression);
      return inner.length === 1 ? inner[0]! : `(${inner.join(key === 'allOf' ? ' and ' : ' or ')})`;
    }
    if (key === 'not') return `not (${conditionText(value)})`;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return Object.entries(value as Record<string, unknown>)
        .map(([op, operand]) => `${key} ${op} ${JSON.stringify(operand)}`)
        .join(' and ');
    }
    return `${key}: ${JSON.stringify(value)}`;
  });
  return parts.join(' and ');
}

/** Whether brackets in `text` pair up without closing below zero (so outer ones can be dropped). */
function balanced(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}
