/** Drops internal fields (prefixed `_`) before a read model document goes to a client. */
export function present<T extends object>(doc: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (!key.startsWith('_')) out[key] = value;
  return out as T;
}
