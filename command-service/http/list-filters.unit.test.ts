import type { Filter } from '../../shared/docstore/port';
import { MAX_IN_VALUES, keysOf, matchAny, matchMany, refsOfType, repeatable, searchMatches } from './list-filters';

describe('list filters', () => {
  it('a parameter given once or repeated is the list of its values; an empty value is refused', () => {
    expect(repeatable.parse('a')).toEqual(['a']);
    expect(repeatable.parse(['a', 'b'])).toEqual(['a', 'b']);
    expect(repeatable.safeParse('').success).toBe(false);
    expect(repeatable.safeParse([]).success).toBe(false);
  });

  it('one value is an equality, several are any of them', () => {
    const filter: Filter = {};
    matchAny(filter, 'role', ['a']);
    matchAny(filter, 'user', ['a', 'b']);
    matchAny(filter, 'tenant', undefined);
    expect(filter).toEqual({ role: 'a', user: { $in: ['a', 'b'] } });
  });

  it('keeps long value lists out of the store filter, as a predicate', () => {
    const short: Filter = {};
    expect(matchMany(short, 'key', ['a', 'b'])).toBeUndefined();
    expect(short).toEqual({ key: { $in: ['a', 'b'] } });
    const long: Filter = {};
    const keys = Array.from({ length: MAX_IN_VALUES + 1 }, (_, i) => `k${i}`);
    const keep = matchMany<{ key: string }>(long, 'key', keys)!;
    expect(long).toEqual({});
    expect([keep({ key: 'k0' }), keep({ key: `k${MAX_IN_VALUES}` }), keep({ key: 'other' })]).toEqual([true, true, false]);
  });

  it('search is a case-insensitive substring of any of the fields', () => {
    const user = { key: 'ann', email: 'Ann@Example.com', first_name: null };
    expect(searchMatches(user, ['key', 'email', 'first_name'], 'example')).toBe(true);
    expect(searchMatches(user, ['key', 'first_name'], 'example')).toBe(false);
  });

  it('the refs of one type are a range that holds no other type, even one that starts the same', () => {
    const range = refsOfType('file');
    const inRange = (ref: string) => ref >= range.$gte && ref < range.$lt;
    expect(['file:a', 'file:zz', 'file:'].every(inRange)).toBe(true);
    expect(['files:a', 'fil:a', 'file', 'folder:a'].some(inRange)).toBe(false);
  });

  it('an id names its object by key (type:key for an instance); other values and unknown ids stay', async () => {
    const docs: Record<string, { key: string; resource?: string; environment_id: string }> = {
      '11111111-1111-4111-8111-111111111111': { key: 'docs', resource: 'folder', environment_id: 'env' },
      '22222222-2222-4222-8222-222222222222': { key: 'ann', environment_id: 'env' },
      '33333333-3333-4333-8333-333333333333': { key: 'elsewhere', environment_id: 'other' },
    };
    const byId = async (id: string) => docs[id] ?? null;
    expect(await keysOf(Object.keys(docs).concat('plain', '44444444-4444-4444-8444-444444444444'), byId, 'env')).toEqual([
      'folder:docs',
      'ann',
      '33333333-3333-4333-8333-333333333333',
      'plain',
      '44444444-4444-4444-8444-444444444444',
    ]);
    expect(await keysOf(undefined, byId, 'env')).toBeUndefined();
  });
});
