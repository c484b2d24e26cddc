import { z } from 'zod';

/** A proxy config's secret as the API takes and answers it: a token, `user:password`, or header names to values. */
export type PlainSecret = string | Record<string, string>;

/**
 * What a secret looks like, without its value: what the decider checks against the auth
 * mechanism (a Basic secret is `user:password`, a Headers secret names at least one header)
 * without the key. `empty`: '' (no token); `no headers`: {} (no header named).
 */
export const secretForms = ['token', 'user:password', 'empty', 'headers', 'no headers'] as const;
export type SecretForm = (typeof secretForms)[number];

const BASIC = /^.+:.+$/;

export function secretFormOf(secret: PlainSecret): SecretForm {
  if (typeof secret !== 'string') return Object.keys(secret).length > 0 ? 'headers' : 'no headers';
  return secret.length === 0 ? 'empty' : BASIC.test(secret) ? 'user:password' : 'token';
}

/**
 * A secret sealed for the event log (version 1): AES-256-GCM of its JSON under the deployment
 * key `kid`, with a random 12-byte nonce (`iv`), the 16-byte tag and the ciphertext (`data`), in
 * base64. Beside them, in the clear and covered by the tag (GCM's associated data): its `form`,
 * and `mac`, a keyed HMAC-SHA256 of the JSON (base64url) under a key derived from the same
 * deployment key, equal for equal secrets, which lets a copy compare two secrets without
 * opening them (shared/secrets/secret-box.ts).
 */
export const sealedSecretSchema = z.object({
  v: z.literal(1),
  kid: z.string().min(1),
  iv: z.string().min(1),
  tag: z.string().min(1),
  data: z.string().min(1),
  form: z.enum(secretForms),
  mac: z.string().min(1),
});
export type SealedSecret = z.infer<typeof sealedSecretSchema>;

/** Whether two sealed secrets hold the same value: same key and same MAC (with another key, they count as different). */
export const sameSealedSecret = (a: SealedSecret, b: SealedSecret): boolean => a.kid === b.kid && a.mac === b.mac;
