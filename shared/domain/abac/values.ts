/** The kinds of JSON value a condition compares, and Permit's attribute types as those kinds. */
export type ValueKind = 'bool' | 'number' | 'string' | 'array' | 'object';

export function kindOf(value: unknown): ValueKind | undefined {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : undefined;
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object' && value !== null) return 'object';
  return undefined;
}

/** Permit's attribute types (AttributeType enum). `json` may hold anything, so it has no kind to check against. */
export const attributeTypes = ['bool', 'number', 'string', 'time', 'array', 'json', 'object', 'object_array'] as const;
export type AttributeType = (typeof attributeTypes)[number];

export function kindOfType(type: string): ValueKind | undefined {
  switch (type) {
    case 'bool':
    case 'number':
    case 'string':
    case 'array':
    case 'object':
      return type;
    case 'time':
      return 'string';
    case 'object_array':
      return 'array';
    default:
      return undefined;
  }
}

/** Structural equality of JSON values (object key order does not matter). */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEquals(item, b[i]));
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const ak = Object.keys(a);
  const bo = b as Record<string, unknown>;
  return ak.length === Object.keys(bo).length && ak.every((k) => k in bo && jsonEquals((a as Record<string, unknown>)[k], bo[k]));
}

export const describeValue = (value: unknown) => kindOf(value) ?? (value === undefined ? 'absent' : 'not a JSON value');
