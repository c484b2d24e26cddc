/**
 * The header that carries a write's log position, and that a read may send back to be at least that
 * fresh. A module of their own, so the fast lanes (fast-lane.ts) read them without importing services.ts,
 * which imports the body parser that imports them.
 */
export const POSITION_HEADER = 'X-Event-Position';
export const MIN_POSITION_HEADER = 'X-Min-Event-Position';

/**
 * Permit's PDP wait-for-update headers (the SDKs' `wait_for_sync` / `waitForSync`, sent with facts
 * proxied through the PDP): how long, in seconds, a write waits for the PDP to have it, and what
 * happens when it does not in time (`ignore`: answer anyway, the default; `fail`: 424). Here they
 * bound the read-your-writes wait (read-your-writes.ts).
 */
export const WAIT_TIMEOUT_HEADER = 'X-Wait-Timeout';
export const TIMEOUT_POLICY_HEADER = 'X-Timeout-Policy';
