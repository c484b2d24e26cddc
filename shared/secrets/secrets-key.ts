import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { ensureDir } from '../data-dir';
import { parseSecretsKey, SecretBox } from './secret-box';

export const SECRETS_KEY_FILE = 'secrets-key';

/**
 * The deployment's secrets key, as a SecretBox: SECRETS_KEY when set; otherwise the key in
 * DATA_DIR/secrets-key. When that file does not exist either, `generate` (the one-process service)
 * writes a new random key there (mode 0600, as the admin key) and logs where it is; without it (a
 * separate command service, whose DATA_DIR is a cache and whose replicas must share one key) the
 * start fails with a message saying what to set. A file that holds no valid key fails the start.
 */
export function loadSecretBox(config: Pick<Config, 'SECRETS_KEY' | 'DATA_DIR'>, logger: Logger, generate: boolean): SecretBox {
  if (config.SECRETS_KEY !== undefined) {
    const box = new SecretBox(keyOrThrow(config.SECRETS_KEY, 'SECRETS_KEY'));
    logger.info({ kid: box.kid }, 'secrets are sealed with SECRETS_KEY');
    return box;
  }
  const path = resolve(join(config.DATA_DIR, SECRETS_KEY_FILE));
  const existing = readIfExists(path);
  if (existing !== null) {
    const box = new SecretBox(keyOrThrow(existing, path));
    logger.info({ path, kid: box.kid }, 'secrets are sealed with the key in this file');
    return box;
  }
  if (!generate)
    throw new Error(
      `SECRETS_KEY is not set and ${path} does not exist: set SECRETS_KEY to the deployment's key (the base64 of 32 bytes, openssl rand -base64 32; docs/distributed.md)`,
    );
  ensureDir(config.DATA_DIR);
  try {
    // 'wx': of two processes starting on one data directory, the second reads the first one's key.
    writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const box = new SecretBox(keyOrThrow(readFileSync(path, 'utf8'), path));
  logger.info(
    { path, kid: box.kid },
    'generated the secrets key into this file: keep it with the event log (secrets stored in the log need it)',
  );
  return box;
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function keyOrThrow(text: string, source: string): Buffer {
  const parsed = parseSecretsKey(text);
  if (!parsed.ok) throw new Error(`${source} ${parsed.reason}`);
  return parsed.key;
}
