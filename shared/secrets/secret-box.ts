import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { SecretUnreadableError } from '../errors';
import { sealedSecretSchema, secretFormOf, type PlainSecret, type SealedSecret } from './sealed-secret';

/** SECRETS_KEY's form: the base64 of 32 bytes (`openssl rand -base64 32`), 44 characters. */
const KEY_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/** The 32 bytes of a key in base64, or the reason it is not one (for a message naming the variable or file). */
export function parseSecretsKey(text: string): { ok: true; key: Buffer } | { ok: false; reason: string } {
  const trimmed = text.trim();
  if (!KEY_BASE64.test(trimmed)) return { ok: false, reason: 'must be the base64 of 32 random bytes (openssl rand -base64 32)' };
  return { ok: true, key: Buffer.from(trimmed, 'base64') };
}

/** One deployment key's derived keys: encryption and MAC keys are kept apart (HKDF-SHA256), the id is public. */
interface Keyring {
  kid: string;
  encryption: Buffer;
  mac: Buffer;
}

const derive = (key: Buffer, info: string, length: number) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, length));

function keyring(key: Buffer): Keyring {
  if (key.length !== 32) throw new Error('a secrets key is 32 bytes');
  return {
    kid: derive(key, 'rebac secrets v1 key id', 8).toString('hex'),
    encryption: derive(key, 'rebac secrets v1 aes-256-gcm', 32),
    mac: derive(key, 'rebac secrets v1 hmac-sha256', 32),
  };
}

/** The JSON a secret is sealed as: an object's members in key order, so equal secrets have equal MACs. */
function canonicalJson(secret: PlainSecret): string {
  if (typeof secret === 'string') return JSON.stringify(secret);
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(secret)
        .sort()
        .map((k) => [k, secret[k]]),
    ),
  );
}

/** What the tag covers besides the ciphertext: everything of the envelope kept in the clear. */
const associatedData = (s: Pick<SealedSecret, 'v' | 'kid' | 'form' | 'mac'>) =>
  Buffer.from(`rebac-secret:${s.v}:${s.kid}:${s.form}:${s.mac}`);

const isPlainSecret = (value: unknown): value is PlainSecret =>
  typeof value === 'string' ||
  (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string'));

/** What seals secrets before they are appended and opens them where the API reads them back. */
export interface Secrets {
  /** The id of the key it seals with; null: it holds none. */
  readonly kid: string | null;
  seal(secret: PlainSecret): SealedSecret;
  open(stored: unknown): PlainSecret;
}

/**
 * The secrets of a process that never seals nor opens one (the task service copies envelopes as
 * they are and compares them by MAC; a check worker forwards every proxy config request): a
 * request that reaches it anyway is refused by name rather than answered wrong.
 */
export const keylessSecrets: Secrets = {
  kid: null,
  seal() {
    throw new SecretUnreadableError('this process holds no secrets key (SECRETS_KEY): it cannot seal a secret');
  },
  open() {
    throw new SecretUnreadableError('this process holds no secrets key (SECRETS_KEY): it cannot open a secret');
  },
};

/**
 * Seals secrets for the event log and opens them where they are read back (AES-256-GCM, a random
 * nonce per seal; the envelope is `SealedSecret`). It seals with the deployment key and opens what
 * that key, or one of `previous` (kept for a rotation), sealed. Everything it cannot open is a
 * SecretUnreadableError whose message names the cause: another key, an altered envelope, or a
 * value that was never sealed.
 */
export class SecretBox implements Secrets {
  private readonly current: Keyring;
  private readonly byKid: Map<string, Keyring>;

  constructor(key: Buffer, previous: Buffer[] = []) {
    this.current = keyring(key);
    this.byKid = new Map([this.current, ...previous.map(keyring)].map((k) => [k.kid, k]));
  }

  /** The id of the key this box seals with (in every envelope it makes, and in the start-up log). */
  get kid(): string {
    return this.current.kid;
  }

  seal(secret: PlainSecret): SealedSecret {
    const { kid, encryption, mac: macKey } = this.current;
    const json = canonicalJson(secret);
    const clear = { v: 1 as const, kid, form: secretFormOf(secret), mac: createHmac('sha256', macKey).update(json).digest('base64url') };
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', encryption, iv);
    cipher.setAAD(associatedData(clear));
    const data = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
    return { ...clear, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  /** The secret an envelope holds; `stored` is what a read model or an event holds, checked here. */
  open(stored: unknown): PlainSecret {
    if (isPlainSecret(stored))
      throw new SecretUnreadableError(
        'the stored secret is not encrypted (a plain value where an envelope sealed with SECRETS_KEY belongs); set the secret again',
      );
    const parsed = sealedSecretSchema.safeParse(stored);
    if (!parsed.success) throw new SecretUnreadableError('the stored secret is not an envelope this service knows (version 1)');
    const sealed = parsed.data;
    const ring = this.byKid.get(sealed.kid);
    if (!ring)
      throw new SecretUnreadableError(
        `the secret was encrypted with key ${sealed.kid}, which this service does not have (SECRETS_KEY; this service's key is ${this.kid})`,
      );
    let json: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', ring.encryption, Buffer.from(sealed.iv, 'base64'), { authTagLength: 16 });
      decipher.setAAD(associatedData(sealed));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      json = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(`the secret sealed with key ${sealed.kid} does not authenticate: its envelope was altered`);
    }
    const secret = JSON.parse(json) as unknown;
    if (!isPlainSecret(secret)) throw new SecretUnreadableError(`the secret sealed with key ${sealed.kid} is not a token or header values`);
    return secret;
  }
}
