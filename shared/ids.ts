import { createHash, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/**
 * A deterministic UUID (v5 layout, SHA-1 of namespace + name). Used where a
 * retried or redelivered operation must produce the same ids, e.g. the objects
 * of a copied environment are named from (target environment, source id).
 */
export function deterministicId(namespace: string, name: string): string {
  const hash = createHash('sha1').update(namespace).update('\u0000').update(name).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);
