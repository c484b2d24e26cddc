import type { EnvEvent } from '../../events';
import type { EnvCommand } from './commands';
import type { EnvState } from './state';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/** Most expiries one command appends: a larger instant's worth is appended over several commands. */
export const MAX_EXPIRIES_PER_COMMAND = 1_000;

/**
 * The expiries due at `now` (docs/expiring-access.md): a RoleAssignmentExpired or
 * RelationshipTupleExpired for each assignment and tuple whose end is at or before it, in the order
 * of their ends, each saying its own end (when it took effect, however late this runs). Decided
 * against the stream's state, so an end moved or a fact removed meanwhile expires nothing, and two
 * schedulers appending for the same instant append each expiry once (the second one's append
 * conflicts, and decided again it finds nothing due).
 */
export function expireDue(c: Cmd<'ExpireDue'>, s: EnvState): EnvEvent[] {
  const due = [...s.ends].filter(([, end]) => end <= c.now).sort(([ka, a], [kb, b]) => (a < b ? -1 : a > b ? 1 : ka < kb ? -1 : 1));
  const events: EnvEvent[] = [];
  for (const [key, expiresAt] of due.slice(0, MAX_EXPIRIES_PER_COMMAND)) {
    const factKey = key.slice(2);
    if (key.startsWith('a|')) {
      const assignment = s.assignments.get(factKey);
      if (assignment) events.push({ type: 'RoleAssignmentExpired', data: { ...assignment, expiresAt } });
    } else {
      const tuple = s.tuples.get(factKey);
      if (tuple) events.push({ type: 'RelationshipTupleExpired', data: { ...tuple, expiresAt } });
    }
  }
  return events;
}
