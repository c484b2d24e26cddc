import type { CollectionSpec, FieldValue, Filter, Range } from '../../docstore/port';

/**
 * What a read as of a position needs to merge the current documents with the closed versions:
 * the port's orders and conditions, evaluated here on what the two reads found.
 */

/** `first`, then those of `second` whose key none of `first` has (a document read on both sides is the first side's). */
export function mergeNewestFirst<T>(first: T[], second: T[], key: (item: T) => string): T[] {
  if (second.length === 0) return first;
  const seen = new Set(first.map(key));
  const merged = [...first];
  for (const item of second) if (!seen.has(key(item))) merged.push(item);
  return merged;
}

/** Strings in the order of their UTF-8 bytes (the port's order for strings): code point order. */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Two field values in the engines' order: null (or absent) first, then numbers, then strings (by their bytes). */
export function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 1) return Number(a) - Number(b);
  return byteOrder(String(a), String(b));
}

/** Whether `value` meets one field's condition of a filter. */
export function matches(value: FieldValue, condition: Filter[string]): boolean {
  if (condition === null || typeof condition !== 'object') return value === condition;
  if ('$in' in condition) return condition.$in.includes(value);
  const range: Range = condition;
  const c = (bound: FieldValue) => compareValues(value, bound);
  if (range.$gt !== undefined && !(c(range.$gt) > 0)) return false;
  if (range.$gte !== undefined && !(c(range.$gte) >= 0)) return false;
  if (range.$lt !== undefined && !(c(range.$lt) < 0)) return false;
  if (range.$lte !== undefined && !(c(range.$lte) <= 0)) return false;
  return true;
}

const isEquality = (condition: Filter[string]): boolean => condition === null || typeof condition !== 'object';

/**
 * The fields a list without a sort comes in the order of, on the current collection: that of the
 * index SQLite's plan reads it through without statistics (the one whose leading fields the filter
 * fixes most; of those, the one with the fewest fields; of those, the last declared), less the
 * fields fixed to one value; then `_from`, then id (ties: the history's indexes end with `_from`,
 * and the current documents were written in the order of theirs). A filter on `id` reads by the
 * key: id order. The history's indexes are the current ones with `_from` appended, so the closed
 * versions of the same filter come in the same order, and the merged list is the list the current
 * collection answered then.
 */
export function naturalOrder(spec: CollectionSpec, filter: Filter): string[] {
  if ('id' in filter) return [];
  let best: string[] = [];
  let fixed = 0;
  for (const index of spec.indexes) {
    let leading = 0;
    while (leading < index.length && index[leading]! in filter && !isRange(filter[index[leading]!]!)) leading++;
    if (leading > fixed || (leading === fixed && leading > 0 && index.length <= best.length)) {
      best = index;
      fixed = leading;
    }
  }
  return [...best.filter((name) => !(name in filter && isEquality(filter[name]!))), '_from'];
}

const isRange = (condition: Filter[string]): boolean => condition !== null && typeof condition === 'object' && !('$in' in condition);
