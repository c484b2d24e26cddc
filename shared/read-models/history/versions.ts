import { isDeepStrictEqual } from 'node:util';
import type { CollectionSpec } from '../../docstore/port';
import { withFields } from '../../objects';

/**
 * The shapes of the history read model (docs/audit.md "Time travel"), as SQL:2011's system-versioned
 * tables keep them: a versioned collection's current document carries `_from`, the position of the
 * event that made it what it is (the open version, `[_from, now)`); its history collection keeps the
 * closed versions, `[_from, _to)`, each written when the current document was replaced or deleted.
 */

/** `_to` of the version that is current now (the current document, as a version). */
export const OPEN = Number.MAX_SAFE_INTEGER;

/** The field of a versioned collection's current document: the position it became true at (inclusive). */
export const FROM = '_from';

export interface Versioned {
  /** The document's own id (`id` is the version's: `<_oid>@<_from>`). */
  _oid: string;
  /** Position of the event that made this version (inclusive). */
  _from: number;
  /** Position of the event that replaced or deleted it (exclusive); OPEN while current. */
  _to: number;
}
export type Version<T> = T & Versioned;

/** A current document of a versioned collection: what the API shows, and `_from`. */
export type Stamped<T> = T & { _from: number };

/**
 * The history collection of a versioned collection: the same fields plus `_oid` (the document's
 * id), `_from` and `_to`; the same indexes with `_from` appended, so a lookup that names every
 * field of an index reads "born at or before p" as a range of that index (and checks `_to > p` on
 * the few rows found), and a list orders its rows as the current list does (ties in creation
 * order); plus `(_oid, _from)` for reads by id.
 */
export function historySpec(spec: CollectionSpec): CollectionSpec {
  const fields = spec.fields.filter((field) => field !== FROM);
  return {
    name: `history_${spec.name}`,
    fields: [...fields, '_oid', '_from', '_to'],
    indexes: [...spec.indexes.map((index) => [...index, '_from']), ['_oid', '_from']],
    ...(spec.compact ? { compact: true } : {}),
  };
}

export const versionId = (oid: string, from: number): string => `${oid}@${from}`;

export function versionOf<T extends { id: string }>(doc: T, from: number, to = OPEN): Version<T> {
  // Once per version written: not a spread (shared/objects.ts).
  return withFields(doc, { id: versionId(doc.id, from), _oid: doc.id, _from: from, _to: to }) as Version<T>;
}

/** A current document as the version it is: open (`_to` OPEN), from its `_from`. */
export function openVersionOf<T extends { id: string }>(doc: Stamped<T>): Version<T> {
  return versionOf(doc, doc._from);
}

/**
 * Whether two forms of a document hold the same: deeply equal, a top-level field that is null
 * counting as absent, and `_from` left out (it says since when, not what). A document read back has
 * null where a compact collection's column was left out, one a projection writes has nothing there.
 */
export function sameDocument(a: object, b: object): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key in left) if (key !== FROM && !isDeepStrictEqual(left[key] ?? null, right[key] ?? null)) return false;
  for (const key in right) if (key !== FROM && !(key in left) && right[key] !== null && right[key] !== undefined) return false;
  return true;
}

/** The document a version or a current document holds, as the API's reads return it (its own id, no stamps). */
export function documentOf<T extends { id: string }>(version: Version<T> | Stamped<T>): T {
  const record = version as unknown as Record<string, unknown>;
  const doc: Record<string, unknown> = {};
  for (const key in record) if (key !== '_oid' && key !== '_from' && key !== '_to') doc[key] = record[key];
  if (typeof record._oid === 'string') doc.id = record._oid;
  return doc as T;
}
