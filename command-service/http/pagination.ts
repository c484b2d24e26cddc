import type { Collection, Filter } from '../../shared/docstore/port';
import type { Pagination } from './validation';

/**
 * Lists are bare arrays as Permit returns them, or `{data, total_count,
 * page_count}` when the client asks with `include_total_count=true`.
 */
export async function listPage<T extends { id: string }, R = T>(
  collection: Collection<T>,
  filter: Filter,
  page: Pagination,
  present: (doc: T) => R = (doc) => doc as unknown as R,
): Promise<R[] | { data: R[]; total_count: number; page_count: number }> {
  const docs = await collection.find(filter, { skip: (page.page - 1) * page.per_page, limit: page.per_page });
  const data = docs.map(present);
  if (!page.include_total_count) return data;
  const total = await collection.count(filter);
  return { data, total_count: total, page_count: Math.ceil(total / page.per_page) };
}
