import type { EnvEvent } from '../../events';
import type { EnvCommand } from './commands';
import { Ends } from './ends';
import type { EnvState } from './state';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/** Most expiries one command appends: a larger instant's worth is appended over several commands. */
export const MAX_EXPIRIES_PER_COMMAND = 1_000;

/**
 * Most bytes of event data (as JSON, UTF-8) one command's expiries hold: the rest wait for the next
 * command. Well inside the smallest append an event store takes (EventStoreDB's default maximum is
 * 1 MiB, metadata included), which a thousand expiries of facts with long keys would pass: an
 * append refused for its size would be retried for ever, and the expiries never appended.
 */
export const MAX_EXPIRY_BYTES_PER_COMMAND = 512 * 1024;

/**
 * The expiries due at `now` (docs/expiring-access.md): a RoleAssignmentExpired or
 * RelationshipTupleExpired for each assignment and tuple whose end is at or before it, in the order
 * of their ends, each saying its own end (when it took effect, however late this runs). Decided
 * against the stream's state, so an end moved or a fact removed meanwhile expires nothing, and two
 * schedulers appending for the same instant append each expiry once (the second one's append
 * conflicts, and decided again it finds nothing due).
 */
export function expireDue(c: Cmd<'ExpireDue'>, s: EnvState): EnvEvent[] {
  const events: EnvEvent[] = [];
  const due = s.ends instanceof Ends ? s.ends.due(c.now, MAX_EXPIRIES_PER_COMMAND) : earliestDue(s.ends, c.now, MAX_EXPIRIES_PER_COMMAND);
  let bytes = 0;
  for (const [key, expiresAt] of due) {
    const event = expiryOf(key, expiresAt, s);
    if (!event) continue;
    bytes += Buffer.byteLength(JSON.stringify(event.data));
    // The first always goes: one expiry is far below any store's limit.
    if (bytes > MAX_EXPIRY_BYTES_PER_COMMAND && events.length > 0) break;
    events.push(event);
  }
  return events;
}

/** The expiry of the fact an end's key names, or null when the fact is gone. */
function expiryOf(key: string, expiresAt: string, s: EnvState): EnvEvent | null {
  const factKey = key.slice(2);
  if (key.startsWith('a|')) {
    const assignment = s.assignments.get(factKey);
    return assignment ? { type: 'RoleAssignmentExpired', data: { ...assignment, expiresAt } } : null;
  }
  const tuple = s.tuples.get(factKey);
  return tuple ? { type: 'RelationshipTupleExpired', data: { ...tuple, expiresAt } } : null;
}

type End = [key: string, end: string];

/**
 * The `limit` earliest ends at or before `now`, in order of their ends; ends at one instant in the
 * order the state holds them (the order their facts got them), so the choice is the same each time.
 * A state of its own answers this from its index (Ends.due, the same choice); this scan of every
 * end is for any other map of ends, and is the reference the index is tested against.
 * An instant may hold more ends than a command appends (each command then takes the next `limit`):
 * they are chosen in one pass with a bounded heap whose root is the latest kept, rather than by
 * sorting every end due on each command. An end no earlier than the root is passed over with one
 * comparison: of two equal ends the one met first is kept.
 */
export function earliestDue(ends: ReadonlyMap<string, string>, now: string, limit: number): End[] {
  if (limit <= 0) return [];
  const heap: Kept[] = [];
  let order = 0;
  for (const [key, end] of ends) {
    if (end > now) continue;
    order += 1;
    if (heap.length < limit) {
      heap.push({ key, end, order });
      siftUp(heap, heap.length - 1);
    } else if (end < heap[0]!.end) {
      heap[0] = { key, end, order };
      siftDown(heap, 0);
    }
  }
  return heap.sort((a, b) => (before(a, b) ? -1 : 1)).map(({ key, end }) => [key, end]);
}

/** An end kept, with its place in the state's order. */
interface Kept {
  key: string;
  end: string;
  order: number;
}

const before = (a: Kept, b: Kept): boolean => a.end < b.end || (a.end === b.end && a.order < b.order);

/** Max-heap by `before`: a parent never comes before its children. */
function siftUp(heap: Kept[], i: number): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[parent]!, heap[i]!)) return;
    [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
    i = parent;
  }
}

function siftDown(heap: Kept[], i: number): void {
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let latest = i;
    if (left < heap.length && before(heap[latest]!, heap[left]!)) latest = left;
    if (right < heap.length && before(heap[latest]!, heap[right]!)) latest = right;
    if (latest === i) return;
    [heap[latest], heap[i]] = [heap[i]!, heap[latest]!];
    i = latest;
  }
}
