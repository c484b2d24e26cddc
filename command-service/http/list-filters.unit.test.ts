import type { Collection, Filter } from '../../shared/docstore/port';
import { MAX_IN_VALUES, keysOf, matchAny, matchMany, refsOfType, repeatable, searchedPage, searchMatches } from './list-filters';

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

describe('searchedPage', () => {
  /** Just what searchedPage asks of a collection: equality on `group`, `id > x`, id order, a limit. */
  const docs = Array.from({ length: 25 }, (_, i) => ({
    id: `id-${String(i).padStart(2, '0')}`,
    key: i % 2 ? `odd-${i}` : `even-${i}`,
    group: 'g',
  }));
  type Doc = (typeof docs)[number];
  const find = async (filter: Filter, options: { limit?: number; sortBy?: string; skip?: number } = {}): Promise<Doc[]> => {
    const after = (filter.id as { $gt?: string } | undefined)?.$gt;
    const found = docs.filter((d) => d.group === filter.group && (after === undefined || d.id > after));
    const sorted = options.sortBy === 'id' ? [...found].sort((a, b) => a.id.localeCompare(b.id)) : found;
    return sorted.slice(options.skip ?? 0, (options.skip ?? 0) + (options.limit ?? sorted.length));
  };
  const collection = { find, count: async (filter: Filter) => (await find(filter)).length } as unknown as Collection<Doc>;

  it('walks every batch after the last id it saw and pages the matches', async () => {
    const page = (n: number) => ({ page: n, per_page: 4, include_total_count: true });
    const search = { text: 'ODD', fields: ['key'] };
    const first = await searchedPage(collection, { group: 'g' }, page(1), search, (d) => d, 3);
    expect(first).toEqual({ data: docs.filter((d) => d.key.startsWith('odd')).slice(0, 4), total_count: 12, page_count: 3 });
    const last = await searchedPage(collection, { group: 'g' }, page(3), search, (d) => d, 3);
    expect(last.data.map((d) => d.key)).toEqual(['odd-17', 'odd-19', 'odd-21', 'odd-23']);
    const kept = await searchedPage(
      collection,
      { group: 'g' },
      page(1),
      { text: undefined, fields: [], keep: (d) => d.id.endsWith('0') },
      (d) => d,
      5,
    );
    expect(kept.data.map((d) => d.id)).toEqual(['id-00', 'id-10', 'id-20']);
  });
});
