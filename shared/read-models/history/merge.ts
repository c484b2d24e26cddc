import type { CollectionSpec, Filter } from '../../docstore/port';

/**
 * What a read as of a position needs to merge the current documents with the closed versions
 * (the port's order of values and its conditions are shared/docstore/value-order.ts).
 */

/** `first`, then those of `second` whose key none of `first` has (a document read on both sides is the first side's). */
export function mergeNewestFirst<T>(first: T[], second: T[], key: (item: T) => string): T[] {
  if (second.length === 0) return first;
  const seen = new Set(first.map(key));
  const merged = [...first];
  for (const item of second) if (!seen.has(key(item))) merged.push(item);
  return merged;
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
