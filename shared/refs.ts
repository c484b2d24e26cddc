/** `type:key` → [type, key]; the key may itself contain ':'. */
export function splitRef(ref: string): [string, string] {
  const colon = ref.indexOf(':');
  return colon < 0 ? [ref, ''] : [ref.slice(0, colon), ref.slice(colon + 1)];
}

/** Object keys, Permit's rule: letters, digits, '-' and '_', at most OBJECT_KEY_MAX characters. */
export const OBJECT_KEY_PATTERN = /^[A-Za-z0-9\-_]+$/;
export const OBJECT_KEY_MAX = 256;
export const isObjectKey = (key: string): boolean => key.length <= OBJECT_KEY_MAX && OBJECT_KEY_PATTERN.test(key);
