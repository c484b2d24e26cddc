import type { Filter, FindOptions } from '../../shared/docstore/port';
import type { Finder } from '../../shared/read-models/grants/fact-finders';
import { keysetPages } from './paging';

interface Doc {
  id: string;
  user: string;
}

/** An engine in memory: equality and `$gt` filters, sort by field then id, limit; unsorted answers come in insertion order. */
function memoryFinder(docs: Doc[], queries: FindOptions[]): Finder<Doc> {
  return {
    async find(filter: Filter, options: FindOptions = {}) {
      queries.push(options);
      let out = docs.filter((d) =>
        Object.entries(filter).every(([field, condition]) => {
          const value = (d as unknown as Record<string, string>)[field]!;
          return condition !== null && typeof condition === 'object' && '$gt' in condition
            ? value > String(condition.$gt)
            : value === condition;
        }),
      );
      if (options.sortBy) {
        const field = options.sortBy as keyof Doc;
        out = [...out].sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      }
      return out.slice(0, options.limit ?? out.length);
    },
  };
}

const collect = async (pages: AsyncGenerator<Doc[]>) => {
  const out: Doc[][] = [];
  for await (const page of pages) out.push(page);
  return out;
};

describe('keysetPages', () => {
  it('reads a set that fits in a page with one unsorted query, in the engine order (field, then id)', async () => {
    const docs = [
      { id: 'c', user: 'bob' },
      { id: 'b', user: 'alice' },
      { id: 'a', user: 'bob' },
    ];
    const queries: FindOptions[] = [];
    const pages = await collect(keysetPages(memoryFinder(docs, queries), {}, 'user', 5));
    expect(pages).toEqual([
      [
        { id: 'b', user: 'alice' },
        { id: 'a', user: 'bob' },
        { id: 'c', user: 'bob' },
      ],
    ]);
    expect(queries).toEqual([{ limit: 6 }]);
  });

  it('pages a larger set in keyset order without splitting a group of ties', async () => {
    const docs = Array.from({ length: 12 }, (_, i) => ({ id: `g${String(11 - i).padStart(2, '0')}`, user: `u${Math.floor(i / 3)}` }));
    const pages = await collect(keysetPages(memoryFinder(docs, []), {}, 'user', 4));
    const flat = pages.flat();
    expect(flat.map((d) => d.user)).toEqual([...docs.map((d) => d.user)].sort());
    expect(new Set(flat.map((d) => d.id)).size).toBe(12);
    for (const page of pages.slice(0, -1)) expect(page.length).toBeGreaterThanOrEqual(4);
    expect(pages.every((page, i) => i === 0 || page[0]!.user > pages[i - 1]!.at(-1)!.user)).toBe(true);
  });
});
