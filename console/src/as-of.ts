/**
 * A point in the past as the API's `as_of` takes it: a log position, or an
 * ISO 8601 time with an offset (resolved by the service to the last position
 * accepted at or before it). The console writes times in UTC, as it shows them.
 */
export type AsOf = number | string;

/** `123` → 123; `2026-05-01T09:14:00Z` → itself; anything else → null (the caller says it is not a point in time). */
export function parseAsOf(text: string | null | undefined): AsOf | null {
  const t = (text ?? '').trim();
  if (/^\d+$/.test(t)) return Number(t);
  return isoTime(t) ? t : null;
}

/** An ISO time with a zone (`Z` or `+hh:mm`), as the API requires. */
export function isoTime(text: string): boolean {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(text) && !Number.isNaN(Date.parse(text));
}

/** A `datetime-local` input's value (`2026-05-01T09:14` or with seconds), read as UTC → `2026-05-01T09:14:00Z`; '' → null. */
export function utcInputToIso(value: string): string | null {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value)) return null;
  const iso = `${value.length === 16 ? `${value}:00` : value}Z`;
  return Number.isNaN(Date.parse(iso)) ? null : iso;
}

/** The other way: an ISO time → a `datetime-local` value in UTC (seconds kept). */
export function isoToUtcInput(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().slice(0, 19);
}

/** `position 42` or `2026-05-01 09:14:00Z`. */
export function asOfText(value: AsOf): string {
  return typeof value === 'number' ? `position ${value}` : value.replace('T', ' ');
}
