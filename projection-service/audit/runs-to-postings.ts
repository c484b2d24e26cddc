import type { Collection, DocumentStore } from '../../shared/docstore/port';
import {
  encodePostings,
  keyOnly,
  positionOfId,
  POSITION_WIDTH,
  RUNS_PER_POSTINGS,
  type AuditCollections,
} from '../../shared/read-models/audit-log';

/**
 * The audit index as written before 2026-11-29: one document per run of a term,
 * `{ id: '<code>|<term>|<start>', e: <end> }`, in `audit_runs` (declared as the
 * other audit collections are: key only, compact, clustered).
 */
export interface LegacyRunDoc {
  id: string;
  e: number;
}

export const legacyRuns = (store: DocumentStore): Collection<LegacyRunDoc> => store.collection(keyOnly('audit_runs'));

/**
 * Moves an index's runs into postings documents, so that a deployment upgraded
 * with its read models in place keeps answering filtered queries over its whole
 * history without a rebuild. A term's runs are grouped RUNS_PER_POSTINGS at a
 * time from its first, which is what the projection writes for the same runs,
 * so the result is the index a rebuild would make.
 *
 * Page by page (the runs left, in id order): the postings of a page are written
 * before its runs are deleted, and a term's runs that may go on in the next page
 * stay for it, so a crash part-way (on an engine without transactions) leaves
 * runs that the next start moves the same way. Returns the runs moved.
 */
export async function moveRunsToPostings(store: DocumentStore, c: AuditCollections, pageSize = 10_000): Promise<number> {
  // A full page then holds at least two groups, so holding back its last one always moves something.
  if (pageSize <= RUNS_PER_POSTINGS) throw new Error(`pageSize must exceed ${RUNS_PER_POSTINGS}, not ${pageSize}`);
  const legacy = legacyRuns(store);
  let moved = 0;
  for (;;) {
    const page = await legacy.find({}, { sortBy: 'id', limit: pageSize });
    if (page.length === 0) return moved;
    const full = page.length === pageSize;
    const groups = groupRuns(page);
    // The page's last group may go on in the next page (when the page is full): it waits for it.
    const ready = full ? groups.slice(0, -1) : groups;
    await c.postings.putMany(ready.map((group) => encodePostings(group.prefix, group.runs)));
    const lastMoved = ready.at(-1)!.lastId;
    await legacy.deleteMany({ id: { $gte: page[0]!.id, $lte: lastMoved } });
    moved += ready.reduce((sum, group) => sum + group.runs.length / 2, 0);
  }
}

interface RunGroup {
  /** `<code>|<term>|` */
  prefix: string;
  /** Flat `[start0, end0, …]`. */
  runs: number[];
  /** The id of its last run's document. */
  lastId: string;
}

/** Runs in id order, grouped by term, RUNS_PER_POSTINGS at a time from each term's first in the page. */
function groupRuns(docs: LegacyRunDoc[]): RunGroup[] {
  const groups: RunGroup[] = [];
  let current: RunGroup | null = null;
  for (const doc of docs) {
    const prefix = doc.id.slice(0, -POSITION_WIDTH);
    if (!current || current.prefix !== prefix || current.runs.length >= 2 * RUNS_PER_POSTINGS) {
      current = { prefix, runs: [], lastId: doc.id };
      groups.push(current);
    }
    current.runs.push(positionOfId(doc.id), doc.e);
    current.lastId = doc.id;
  }
  return groups;
}
