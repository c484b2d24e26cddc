import { mkdirSync } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
// setImmediate runs after the event loop has looked at the sockets: awaited, it lets the loop serve what came meanwhile.
import { setImmediate as nextTurn } from 'node:timers/promises';

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
 * 5: a state's large Maps follow the rest in chunks (see encodeSnapshot).
 */
export const SNAPSHOT_FORMAT = 5;

/**
 * Entries per chunk of a large Map: a chunk deserialises in tens of milliseconds, so loading the
 * state of a large environment never holds the event loop for long (a whole state of a million
 * facts took seconds in one piece, and every request the process served waited for it).
 */
export const CHUNK_ENTRIES = 50_000;

/** What a snapshot file begins with: the state without its large Maps, and where their chunks are. */
interface SnapshotHeader {
  format: number;
  streamId: string;
  version: number;
  state: unknown;
  /** The state's fields taken out, in file order, each with the byte lengths of its chunks. */
  chunked: Array<{ field: string; lengths: number[] }>;
}

/**
 * A snapshot as the parts of its file: the v8-serialised header (Maps and Sets survive), then, for
 * each top-level Map of the state with more than CHUNK_ENTRIES entries, its entries in chunks of
 * CHUNK_ENTRIES, each v8-serialised on its own, then the header's length. Serialised now, synchronously: the caller goes on
 * mutating `state` in place.
 */
export function encodeSnapshot(streamId: string, version: number, state: unknown): Buffer[] {
  const chunks: Buffer[] = [];
  const chunked: SnapshotHeader['chunked'] = [];
  let head = state;
  if (state !== null && typeof state === 'object' && !Array.isArray(state) && !(state instanceof Map)) {
    const rest: Record<string, unknown> = { ...(state as Record<string, unknown>) };
    for (const [field, value] of Object.entries(rest)) {
      if (!(value instanceof Map) || value.size <= CHUNK_ENTRIES) continue;
      const lengths: number[] = [];
      // Keys and values as two arrays, sliced a chunk at a time: an array per entry (pairs) serialises several times slower.
      const keys = [...(value as Map<unknown, unknown>).keys()];
      const values = [...(value as Map<unknown, unknown>).values()];
      for (let i = 0; i < keys.length; i += CHUNK_ENTRIES) {
        const bytes = serialize([keys.slice(i, i + CHUNK_ENTRIES), values.slice(i, i + CHUNK_ENTRIES)]);
        chunks.push(bytes);
        lengths.push(bytes.length);
      }
      rest[field] = null;
      chunked.push({ field, lengths });
    }
    head = rest;
  }
  const header = serialize({ format: SNAPSHOT_FORMAT, streamId, version, state: head, chunked } satisfies SnapshotHeader);
  const trailer = Buffer.alloc(TRAILER_BYTES);
  trailer.writeUInt32BE(header.length);
  return [header, ...chunks, trailer];
}

/** The file's last bytes: the header's length, so that a file cut short or of another format is told at once. */
const TRAILER_BYTES = 4;

/**
 * The snapshot in `bytes` (a file encodeSnapshot made), its large Maps rebuilt a chunk at a time
 * with `between` awaited before each chunk; null if it is of another format or stream, or not
 * whole (its parts' lengths do not add up to the file's).
 */
export async function decodeSnapshot(
  bytes: Buffer,
  streamId: string,
  between: () => Promise<void>,
): Promise<{ version: number; state: unknown } | null> {
  if (bytes.length < TRAILER_BYTES) return null;
  const headerLength = bytes.readUInt32BE(bytes.length - TRAILER_BYTES);
  if (headerLength === 0 || headerLength > bytes.length - TRAILER_BYTES) return null;
  const header = deserialize(bytes.subarray(0, headerLength)) as Partial<SnapshotHeader> | null;
  if (header?.format !== SNAPSHOT_FORMAT || header.streamId !== streamId || !Array.isArray(header.chunked)) return null;
  const chunkBytes = header.chunked.reduce((sum, { lengths }) => lengths.reduce((a, b) => a + b, sum), 0);
  if (headerLength + chunkBytes + TRAILER_BYTES !== bytes.length) return null;
  let offset = headerLength;
  const state = header.state as Record<string, unknown>;
  for (const { field, lengths } of header.chunked) {
    const map = new Map<unknown, unknown>();
    for (const length of lengths) {
      await between();
      const [keys, values] = deserialize(bytes.subarray(offset, offset + length)) as [unknown[], unknown[]];
      for (let i = 0; i < keys.length; i++) map.set(keys[i], values[i]);
      offset += length;
    }
    state[field] = map;
  }
  return { version: header.version!, state };
}

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
  private readonly queues = new Map<string, { waiting: { bytes: Buffer[]; waiters: Waiter[] } | null }>();

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
      return await decodeSnapshot(bytes, streamId, nextTurn);
    } catch {
      return null;
    }
  }

  /** Resolves once this snapshot, or a newer one of the stream, is on disk. */
  save(streamId: string, version: number, state: unknown): Promise<void> {
    let bytes: Buffer[];
    try {
      // Serialised now, synchronously: the caller goes on mutating `state` in place.
      bytes = encodeSnapshot(streamId, version, state);
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

  /** Writes one serialised snapshot (its file's parts, in order) in place of the stream's file (a test may slow it down). */
  protected async write(streamId: string, bytes: Buffer[]): Promise<void> {
    const target = this.path(streamId);
    // Unique per write, so no two writes ever share a temporary file.
    const temporary = `${target}.${process.pid}.${++this.saves}.tmp`;
    const file = await open(temporary, 'w');
    try {
      // writeFile writes each part whole, at the file's position.
      for (const part of bytes) await file.writeFile(part);
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
