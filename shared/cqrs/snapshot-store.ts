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
 * 4: a resource's actions are key → id maps, with its attributes and action groups.
 */
export const SNAPSHOT_FORMAT = 4;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * One file per stream, v8-serialised (Maps and Sets survive), written to a
 * temporary file, fsynced, then renamed over the old one, so a crash leaves
 * either the old snapshot or the new one, never half of one.
 *
 * One write per stream at a time. A snapshot saved while its stream's file is
 * being written waits, and replaces any older one still waiting (whose save
 * then resolves with it): on a disk slower than the snapshots come, at most
 * two serialised states per stream are held in memory (each the size of the
 * stream's whole state), where concurrent writes piled them up.
 */
export class FileSnapshotStore implements SnapshotStore {
  private saves = 0;
  /** Per stream with a write under way: the newest snapshot waiting for it, if any. */
  private readonly queues = new Map<string, { waiting: { bytes: Buffer; waiters: Waiter[] } | null }>();

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

  /** Resolves once this snapshot, or a newer one of the stream, is on disk. */
  save(streamId: string, version: number, state: unknown): Promise<void> {
    let bytes: Buffer;
    try {
      // Serialised now, synchronously: the caller goes on mutating `state` in place.
      bytes = serialize({ format: SNAPSHOT_FORMAT, streamId, version, state });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(streamId);
      if (queue) {
        queue.waiting = { bytes, waiters: [...(queue.waiting?.waiters ?? []), { resolve, reject }] };
        return;
      }
      this.queues.set(streamId, { waiting: { bytes, waiters: [{ resolve, reject }] } });
      void this.drain(streamId);
    });
  }

  private async drain(streamId: string): Promise<void> {
    const queue = this.queues.get(streamId)!;
    while (queue.waiting) {
      const { bytes, waiters } = queue.waiting;
      queue.waiting = null;
      try {
        await this.write(streamId, bytes);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    this.queues.delete(streamId);
  }

  /** Writes one serialised snapshot in place of the stream's file (a test may slow it down). */
  protected async write(streamId: string, bytes: Buffer): Promise<void> {
    const target = this.path(streamId);
    // Unique per write, so no two writes ever share a temporary file.
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
