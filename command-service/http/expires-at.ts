import { z } from 'zod';
import type { Clock } from '../../shared/clock';
import { ValidationError } from '../../shared/errors';
import { DOCUMENTED_AS } from './validation';

/**
 * ISO 8601 date and time with a zone (`Z` or `±hh:mm`): an instant, never a local time that
 * depends on where the server runs. Seconds and fractions optional; `T` or a space between.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** An instant as sent, to milliseconds since the epoch; NaN when it is none (a 30 February, an hour 25). */
function instantMs(text: string): number {
  if (!ISO_INSTANT.test(text)) return NaN;
  // Date.parse takes the forms above (after `T` for a space) but rolls 2026-02-30 over to March: refused by comparing the date back.
  const iso = text.replace(' ', 'T');
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return NaN;
  const zone = /(?:Z|([+-])(\d{2}):?(\d{2}))$/i.exec(iso)!;
  const offsetMinutes = zone[1] ? (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) : 0;
  const local = new Date(ms + offsetMinutes * 60_000).toISOString();
  return local.slice(0, 16) === `${iso.slice(0, 10)}T${iso.slice(11, 16)}` ? ms : NaN;
}

/**
 * `expires_at` of a role assignment or a relationship tuple: an ISO 8601 instant with a zone,
 * stored as UTC with milliseconds (`toISOString()`); null for no end. Whether it is in the future
 * is checked when the command is built (futureEnd), against the service's clock.
 */
export const expiresAtSchema = z
  .string()
  .refine((text) => !Number.isNaN(instantMs(text)), { message: 'must be an ISO 8601 date and time with a zone (Z or ±hh:mm)' })
  .transform((text) => new Date(instantMs(text)).toISOString())
  .nullable()
  .meta({
    // The format on the string branch, as the document's other nullable members are spelt (a
    // `type: [string, null]` beside `format` had fuzzers draw strings that are no date-time).
    [DOCUMENTED_AS]: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    description:
      'When the access ends (ISO 8601 with a zone; in the future when written). null: never. Writing an existing assignment or tuple again with expires_at moves its end (null removes it).',
  });

/** The `expires_before` list filter: the facts whose end is before this instant (facts without an end never match). */
export const expiresBeforeSchema = z
  .string()
  .refine((text) => !Number.isNaN(instantMs(text)), { message: 'must be an ISO 8601 date and time with a zone (Z or ±hh:mm)' })
  .transform((text) => new Date(instantMs(text)).toISOString())
  .meta({
    format: 'date-time',
    description: 'Only those that end before this instant (ISO 8601 with a zone); those without an end are left out.',
  });

/**
 * The end a write sets: as parsed (undefined: not sent; null: none), refused with a 422 naming
 * `loc` when it is not after `clock`'s now (an end already past would grant nothing, and a past
 * instant is much more often a client's mistake than a wish).
 */
export function futureEnd(clock: Clock, expiresAt: string | null | undefined, loc: Array<string | number>): string | null | undefined {
  if (expiresAt === null || expiresAt === undefined) return expiresAt;
  if (Date.parse(expiresAt) > clock.now()) return expiresAt;
  throw new ValidationError([
    { loc, msg: `must be in the future (it is ${new Date(clock.now()).toISOString()} now)`, type: 'value_error' },
  ]);
}
