import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../config';
import { SecretUnreadableError } from '../errors';
import { sameSealedSecret, secretFormOf, type PlainSecret } from './sealed-secret';
import { parseSecretsKey, SecretBox } from './secret-box';
import { loadSecretBox, SECRETS_KEY_FILE } from './secrets-key';

const key = () => randomBytes(32);
const unreadable = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretUnreadableError);
    return (error as Error).message;
  }
  throw new Error('expected SecretUnreadableError');
};

describe('SecretBox', () => {
  const box = new SecretBox(key());

  it('opens what it sealed: tokens, user:password and header values, with a fresh nonce each time', () => {
    for (const secret of ['tok-1', 'me:pw', '', { 'X-Api-Key': 'k', Other: 'v' }, {}] as PlainSecret[]) {
      const sealed = box.seal(secret);
      expect(sealed).toMatchObject({ v: 1, kid: box.kid, form: secretFormOf(secret) });
      expect(box.open(sealed)).toEqual(secret);
      expect(box.open(JSON.parse(JSON.stringify(sealed)))).toEqual(secret);
    }
    const a = box.seal('same');
    const b = box.seal('same');
    expect(a.iv).not.toBe(b.iv);
    expect(a.data).not.toBe(b.data);
    expect(JSON.stringify(a)).not.toContain('same');
  });

  it('gives equal secrets equal MACs (header order aside), and different ones different MACs', () => {
    expect(sameSealedSecret(box.seal({ a: '1', b: '2' }), box.seal({ b: '2', a: '1' }))).toBe(true);
    expect(sameSealedSecret(box.seal('x'), box.seal('y'))).toBe(false);
    expect(sameSealedSecret(box.seal({ x: 'y' }), box.seal('{"x":"y"}'))).toBe(false);
    // Under another key the same secret cannot be compared: it counts as different.
    expect(sameSealedSecret(box.seal('x'), new SecretBox(key()).seal('x'))).toBe(false);
  });

  it('detects any change to the envelope: ciphertext, nonce, tag, form, MAC', () => {
    const sealed = box.seal('me:pw');
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64');
    };
    for (const altered of [
      { ...sealed, data: flip(sealed.data) },
      { ...sealed, iv: flip(sealed.iv) },
      { ...sealed, tag: flip(sealed.tag) },
      { ...sealed, tag: Buffer.from(sealed.tag, 'base64').subarray(0, 4).toString('base64') },
      { ...sealed, form: 'token' },
      { ...sealed, mac: box.seal('other').mac },
    ])
      expect(unreadable(() => box.open(altered))).toMatch(/altered/);
  });

  it('names the key it does not have', () => {
    const other = new SecretBox(key());
    const sealed = other.seal('tok');
    expect(unreadable(() => box.open(sealed))).toBe(
      `the secret was encrypted with key ${other.kid}, which this service does not have (SECRETS_KEY; this service's key is ${box.kid})`,
    );
  });

  it('opens with a previous key kept for a rotation, and seals with the current one', () => {
    const old = key();
    const sealed = new SecretBox(old).seal('tok');
    const rotated = new SecretBox(key(), [old]);
    expect(rotated.open(sealed)).toBe('tok');
    expect(rotated.seal('tok').kid).toBe(rotated.kid);
    expect(rotated.kid).not.toBe(sealed.kid);
  });

  it('refuses a plain value or an unknown envelope instead of passing it on', () => {
    expect(unreadable(() => box.open('tok-1'))).toMatch(/not encrypted/);
    expect(unreadable(() => box.open({ 'X-Key': 'v' }))).toMatch(/not encrypted/);
    expect(unreadable(() => box.open({ ...box.seal('t'), v: 2 }))).toMatch(/not an envelope/);
    expect(unreadable(() => box.open(null))).toMatch(/not an envelope/);
  });
});

describe('the secrets key', () => {
  const logger = pino({ level: 'silent' });
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rebac-secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is the base64 of 32 bytes: anything else stops the configuration', () => {
    const good = key().toString('base64');
    expect(parseSecretsKey(good)).toMatchObject({ ok: true });
    expect(loadConfig({ SECRETS_KEY: good }).SECRETS_KEY).toBe(good);
    for (const bad of ['', 'short', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), key().toString('hex')])
      expect(() => loadConfig({ SECRETS_KEY: bad })).toThrow(/SECRETS_KEY: must be the base64 of 32 random bytes/);
  });

  it('comes from SECRETS_KEY when set, and is the same box for the same key', () => {
    const k = key().toString('base64');
    const a = loadSecretBox({ SECRETS_KEY: k, DATA_DIR: dir }, logger, true);
    const b = loadSecretBox({ SECRETS_KEY: k, DATA_DIR: dir }, logger, false);
    expect(b.open(a.seal('t'))).toBe('t');
    expect(() => readFileSync(join(dir, SECRETS_KEY_FILE))).toThrow();
  });

  it('is generated into DATA_DIR/secrets-key (0600) by the one-process service and read from there after', () => {
    const first = loadSecretBox({ DATA_DIR: dir }, logger, true);
    const path = join(dir, SECRETS_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(parseSecretsKey(readFileSync(path, 'utf8'))).toMatchObject({ ok: true });
    const again = loadSecretBox({ DATA_DIR: dir }, logger, false);
    expect(again.kid).toBe(first.kid);
    expect(again.open(first.seal('t'))).toBe('t');
  });

  it('is refused when missing and not to be generated, or when the file holds no key', () => {
    expect(() => loadSecretBox({ DATA_DIR: dir }, logger, false)).toThrow(/SECRETS_KEY is not set and .*secrets-key does not exist/);
    writeFileSync(join(dir, SECRETS_KEY_FILE), 'not a key\n');
    expect(() => loadSecretBox({ DATA_DIR: dir }, logger, true)).toThrow(/secrets-key must be the base64 of 32 random bytes/);
  });
});
