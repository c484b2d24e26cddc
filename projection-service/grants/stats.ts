/** Counters of the grants projection, for benchmarks and diagnostics (write amplification = rows written per event). */
export class GrantStats {
  /** Events the projection handled. */
  events = 0;
  /** Grant documents inserted or replaced. */
  grantsWritten = 0;
  /** Grant documents deleted. */
  grantsDeleted = 0;
  /** Edge documents written or deleted: always 0 since the projection reads the facts' tuples instead of keeping a copy (kept for the benchmarks' output). */
  edgeWrites = 0;

  snapshot(): { events: number; grantsWritten: number; grantsDeleted: number; edgeWrites: number } {
    return { events: this.events, grantsWritten: this.grantsWritten, grantsDeleted: this.grantsDeleted, edgeWrites: this.edgeWrites };
  }
}
