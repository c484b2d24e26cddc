import { mkdirSync } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';

/**
 * Snapshots of command-side stream state: a cache that lets a restarted process
 * skip folding a long stream from its first event. Losing one only costs time;
 * a snapshot is never the source of truth (the log is).
 */
export interface SnapshotStore {
  /** The latest snapshot of a stream, or null. */
  load(streamId: string): Promise<{ version: number; state: unknown } | null>;
  /** Stores `state` as of stream `version`, replacing any older snapshot. */
  save(streamId: string, version: number, state: unknown): Promise<void>;
}

/**
 * Bump when the shape of any decider state changes: older snapshots are then
 * ignored (and rebuilt from the log), never misread.
 * 2: the environment's tuples and assignments are kept as key → id maps.
 * 3: ... whose UUID ids are slots of an IdSlab (2 was never released, but
 *    snapshots of it may exist in data directories of this week's builds).
 */
export const SNAPSHOT_FORMAT = 3;

/**
 * One file per stream, v8-serialised (Maps and Sets survive), written to a
 * temporary file, fsynced, then renamed over the old one, so a crash leaves
 * either the old snapshot or the new one, never half of one.
 */
export class FileSnapshotStore implements SnapshotStore {
  private saves = 0;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  private path(streamId: string): string {
    return join(this.dir, `${streamId.replace(/[^A-Za-z0-9_-]/g, '_')}.snapshot`);
  }

  async load(streamId: string): Promise<{ version: number; state: unknown } | null> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path(streamId));
    } catch {
      return null;
    }
    try {
      const snapshot = deserialize(bytes) as { format: number; streamId: string; version: number; state: unknown };
      if (snapshot.format !== SNAPSHOT_FORMAT || snapshot.streamId !== streamId) return null;
      return { version: snapshot.version, state: snapshot.state };
    } catch {
      return null;
    }
  }

  async save(streamId: string, version: number, state: unknown): Promise<void> {
    // Serialised now, synchronously: the caller goes on mutating `state` in place.
    const bytes = serialize({ format: SNAPSHOT_FORMAT, streamId, version, state });
    const target = this.path(streamId);
    // Unique per save, so two saves of one stream never write the same file.
    const temporary = `${target}.${process.pid}.${++this.saves}.tmp`;
    const file = await open(temporary, 'w');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target).catch(async (error: unknown) => {
      await unlink(temporary).catch(() => undefined);
      throw error;
    });
  }
}
