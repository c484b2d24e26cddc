import { mkdirSync } from 'node:fs';

/** Creates the data directory (and its parents) if missing; returns it, for use inline in a path. */
export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
