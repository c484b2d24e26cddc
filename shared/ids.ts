import * as crypto from 'node:crypto';
import { createHash, randomUUID } from 'node:crypto';

/**
 * A new id: a UUID of version 7 (RFC 9562), whose first 48 bits are the time
 * in milliseconds, then a 12-bit counter within the millisecond, then 62 random
 * bits. Ids made later sort later, so the read models' id indexes (and the
 * history's, keyed by id and position) take each new row at their end instead
 * of at a random page: at full scale a random insert misses the page cache,
 * and each page a batch touches is written to the WAL at its COMMIT. (Version 4
 * ids, random throughout, were used before; both kinds live side by side.)
 *
 * Monotonic within this process: a millisecond that runs out of counter (4,096
 * ids) borrows the next one, and a clock set back does not move ids back.
 */
export function newId(): string {
  const now = Date.now();
  if (now > clock.ms) {
    clock.ms = now;
    clock.count = 0;
    clock.prefix = timePrefix(now);
  } else if (++clock.count > 0xfff) {
    clock.ms += 1;
    clock.count = 0;
    clock.prefix = timePrefix(clock.ms);
  }
  // randomUUID's last 62 random bits and its variant, after `xxxxxxxx-xxxx-4xxx`.
  return `${clock.prefix}${COUNTER_HEX[clock.count]}${randomUUID().slice(18)}`;
}

const clock = { ms: 0, count: 0, prefix: '' };
/** `tttttttt-tttt-7`: the time in milliseconds as 12 hex digits, and the version. */
const timePrefix = (ms: number): string => {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7`;
};
const COUNTER_HEX = Array.from({ length: 0x1000 }, (_, i) => i.toString(16).padStart(3, '0'));

/**
 * A deterministic UUID (v5 layout, SHA-1 of namespace + name). Used where a
 * retried or redelivered operation must produce the same ids, e.g. the objects
 * of a copied environment are named from (target environment, source id).
 */
export function deterministicId(namespace: string, name: string): string {
  const hash = sha1(`${namespace}\u0000${name}`);
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id a copy gives the object `sourceId` in the environment `namespace`:
 * deterministicId(namespace, sourceId), except that a time-ordered source id
 * (version 7, newId) keeps its time and counter, the first 64 bits, and takes
 * the rest from that hash. The copied objects then sort as their sources do,
 * so a copy's projections append to the id indexes as the source's did.
 */
export function copiedId(namespace: string, sourceId: string): string {
  const derived = deterministicId(namespace, sourceId);
  return V7_PATTERN.test(sourceId) ? `${sourceId.slice(0, 19).toLowerCase()}${derived.slice(19)}` : derived;
}

const V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/i;

/**
 * SHA-1 with Node's one-shot `crypto.hash` (20.12+) where it exists: the same
 * digest for less than createHash's object per call, which matters when a copy derives
 * an id per event.
 */
const sha1 = (input: string): Buffer =>
  typeof crypto.hash === 'function' ? crypto.hash('sha1', input, 'buffer') : createHash('sha1').update(input).digest();

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

const HEX32_PATTERN = /^[0-9a-f]{32}$/i;

/**
 * An id as it is stored (a dashed, lower-case UUID), from any spelling a client may send: Permit's
 * own answers and its SDK 3.x send ids as 32 hex digits without dashes, and UUIDs compare without
 * regard to case (RFC 9562). Anything else (a key) is returned as it is.
 */
export function canonicalId(ref: string): string {
  if (ref.length === 32 && HEX32_PATTERN.test(ref)) {
    const hex = ref.toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return ref.length === 36 && UUID_PATTERN.test(ref) ? ref.toLowerCase() : ref;
}
