/**
 * Ends of access (docs/expiring-access.md) as the grants read model keeps them: an ISO instant in
 * UTC with milliseconds (`toISOString()`), which compare as strings in time order; null or
 * absent: never.
 */
export type End = string | null | undefined;

/** Negative when `a` ends before `b`, positive when after, 0 when at the same instant (never is after every instant). */
export function compareEnds(a: End, b: End): number {
  const never = (end: End) => end === null || end === undefined;
  if (never(a)) return never(b) ? 0 : 1;
  if (never(b)) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The end of a chain of supports: the first of its links' ends. */
export const earlierEnd = (a: End, b: End): string | undefined => (compareEnds(a, b) <= 0 ? (a ?? undefined) : (b ?? undefined));

/** Whether access that ends at `end` is still in force at `nowIso` (it is not at its end itself). */
export const inForce = (end: End, nowIso: string): boolean => end === null || end === undefined || end > nowIso;

/** A document with `expires_at` set when there is an end, and without the field when there is none (most grants: no bytes spent on it). */
export function withEnd<T extends { expires_at?: string | null }>(doc: T, end: End): T {
  if (end === null || end === undefined) {
    if (doc.expires_at === undefined || doc.expires_at === null) return doc;
    const { expires_at: _gone, ...rest } = doc;
    return rest as T;
  }
  return { ...doc, expires_at: end };
}
