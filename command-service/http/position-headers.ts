/**
 * The header that carries a write's log position, and that a read may send back to be at least that
 * fresh. A module of their own, so the fast lanes (fast-lane.ts) read them without importing services.ts,
 * which imports the body parser that imports them.
 */
export const POSITION_HEADER = 'X-Event-Position';
export const MIN_POSITION_HEADER = 'X-Min-Event-Position';
