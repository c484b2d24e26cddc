/**
 * The writes of the projections' open transaction on PostgreSQL, held until something needs them
 * on the server: a read of their table, a write that answers (insertMissing, deleteMany), or the
 * commit. A projection batch writes one or two documents per event and reads rarely, and every
 * statement is a round trip it waits for; held, a table's writes go as one statement per flush
 * (the puts as one INSERT … ON CONFLICT, the deletes as one DELETE), and the tables' statements of
 * one flush are sent together (pipelined on the transaction's connection). Reads inside the
 * transaction still see its writes: a read of a table first sends what is held for it. Held writes
 * that fail, fail the commit, and the transaction (atomic) is rolled back whole.
 */

/** A table's held writes: the last document put per id, or null for a delete. Insertion order kept. */
export type HeldWrites = Map<string, object | null>;

/** Sends a table's held writes. */
export type SendWrites = (held: HeldWrites) => Promise<void>;

/** Held writes of one table past which they are sent without waiting for a read (memory stays bounded). */
export const HOLD_AT_MOST = 2000;

export class WriteBuffer {
  private readonly tables = new Map<string, { held: HeldWrites; send: SendWrites }>();

  /** The held writes of `table`, which `send` writes to the server. */
  heldFor(table: string, send: SendWrites): HeldWrites {
    let entry = this.tables.get(table);
    if (!entry) {
      entry = { held: new Map(), send };
      this.tables.set(table, entry);
    }
    return entry.held;
  }

  /** Sends what `table` holds (nothing when it holds nothing). */
  async flush(table: string): Promise<void> {
    const entry = this.tables.get(table);
    if (!entry || entry.held.size === 0) return;
    const held = entry.held;
    entry.held = new Map();
    await entry.send(held);
  }

  /** Sends what every table holds, the tables' statements together. */
  async flushAll(): Promise<void> {
    await Promise.all([...this.tables.keys()].map((table) => this.flush(table)));
  }
}
