/**
 * When to have PostgreSQL analyse a read-model table: each time the rows written to it since the
 * service started have doubled (from ANALYSE_FROM on). Autovacuum analyses a table only a minute or
 * more after it grew; during a rebuild the tables grow from empty much faster than that, and the
 * planner, with no statistics, takes every index with the same leading column for as good as another
 * (it read a user's assignments through the index on tenants, the whole environment's entries, for
 * each event). Doubling keeps the analyses few: about twenty for a table of a million rows.
 */
const ANALYSE_FROM = 1000;

export class TableGrowth {
  private readonly written = new Map<string, { rows: number; analysedAt: number }>();

  /** `rows` were written to `table` (put, deleted or inserted). */
  wrote(table: string, rows: number): void {
    const entry = this.written.get(table);
    if (entry) entry.rows += rows;
    else this.written.set(table, { rows, analysedAt: 0 });
  }

  /** The tables that grew enough since their last analysis to be analysed now (and marked so). */
  due(): string[] {
    const due: string[] = [];
    for (const [table, entry] of this.written) {
      if (entry.rows < ANALYSE_FROM || entry.rows < 2 * entry.analysedAt) continue;
      entry.analysedAt = entry.rows;
      due.push(table);
    }
    return due;
  }
}
