/** `type:key` → [type, key]; the key may itself contain ':'. */
export function splitRef(ref: string): [string, string] {
  const colon = ref.indexOf(':');
  return colon < 0 ? [ref, ''] : [ref.slice(0, colon), ref.slice(colon + 1)];
}
