import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** API key secrets: `permit_key_` + 48 random url-safe characters. Only their sha256 is stored. */
export const generateApiKeySecret = (): string => `permit_key_${randomBytes(36).toString('base64url')}`;

export const hashApiKeySecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
