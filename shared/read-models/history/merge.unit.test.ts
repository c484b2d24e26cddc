import type { CollectionSpec } from '../../docstore/port';
import { byteOrder, compareValues, matches } from '../../docstore/value-order';
import { mergeNewestFirst, naturalOrder } from './merge';

describe('merging the current documents with the closed versions', () => {
  it('keeps the first side of a document found on both, in order', () => {
    const first = [
      { id: 'a', v: 1 },
      { id: 'b', v: 1 },
    ];
    const second = [
      { id: 'b', v: 0 },
      { id: 'c', v: 0 },
    ];
    expect(mergeNewestFirst(first, second, (d) => d.id)).toEqual([
      { id: 'a', v: 1 },
      { id: 'b', v: 1 },
      { id: 'c', v: 0 },
    ]);
  });

  it('orders strings by their UTF-8 bytes, and values null first, then numbers, then strings', () => {
    expect(['b', 'a', 'B', '\u{1F600}', '\uFF01'].sort(byteOrder)).toEqual(['B', 'a', 'b', '\uFF01', '\u{1F600}']);
    expect([3, 'a', null, 1].sort(compareValues)).toEqual([null, 1, 3, 'a']);
  });

  it("evaluates a filter's conditions as the port does", () => {
    expect(matches(Number.MAX_SAFE_INTEGER, { $gt: 10 })).toBe(true);
    expect(matches(5, { $gt: 5 })).toBe(false);
    expect(matches(5, { $gte: 5, $lt: 6 })).toBe(true);
    expect(matches('b', { $in: ['a', 'b'] })).toBe(true);
    expect(matches('b', 'c')).toBe(false);
  });

  it("gives a list without a sort the order of the index SQLite's plan reads (most fixed leading fields, then fewest fields, then last declared)", () => {
    const tuples: CollectionSpec = {
      name: 't',
      fields: ['environment_id', 'subject', 'object', 'relation'],
      indexes: [
        ['environment_id', 'subject', 'object'],
        ['environment_id', 'object', 'subject'],
        ['environment_id', 'relation'],
      ],
    };
    expect(naturalOrder(tuples, { environment_id: 'e' })).toEqual(['relation', '_from']);
    expect(naturalOrder(tuples, { environment_id: 'e', object: 'o' })).toEqual(['subject', '_from']);
    expect(naturalOrder(tuples, { environment_id: 'e', subject: { $in: ['a', 'b'] } })).toEqual(['subject', 'object', '_from']);
    expect(naturalOrder(tuples, { relation: 'r' })).toEqual(['_from']);
    expect(naturalOrder(tuples, { environment_id: 'e', id: { $gt: 'x' } })).toEqual([]);
  });
});
