import { UnavailableError } from '../errors';

/**
 * Which failures of PostgreSQL (or of the way to it) are passing: the server is down, restarting,
 * read-only (a standby, or a primary told to refuse writes), out of room or of connections. Those
 * are answered 503 (retry later), never 500; anything else is a bug or a schema problem.
 */

/** SQLSTATEs (and their classes, by prefix) that mean "not now". */
const UNAVAILABLE_STATES: Record<string, string> = {
  '08': 'the connection to PostgreSQL failed',
  '25006': 'PostgreSQL is read-only (a standby, or default_transaction_read_only)',
  '40001': 'PostgreSQL could not serialise the write',
  '40P01': 'PostgreSQL found a deadlock',
  '53': 'PostgreSQL is out of resources (disk, memory or connections)',
  '55P03': 'a lock PostgreSQL needed was not available',
  '57P01': 'PostgreSQL is shutting down',
  '57P02': 'PostgreSQL is restarting after a crash',
  '57P03': 'PostgreSQL is starting up or shutting down',
  '57P04': 'the database was dropped',
  '57P05': 'the session was idle too long',
  '57014': 'the statement was cancelled',
  '58030': 'PostgreSQL could not write to its disk',
  '3D000': 'the database does not exist',
};

/** Node's socket errors and the client's own connection errors. */
const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'PostgreSQL refused the connection (down or not listening)',
  ECONNRESET: 'the connection to PostgreSQL was reset',
  ETIMEDOUT: 'the connection to PostgreSQL timed out',
  EPIPE: 'the connection to PostgreSQL was broken',
  EHOSTUNREACH: 'the PostgreSQL host is unreachable',
  ENETUNREACH: 'the PostgreSQL host is unreachable',
  ENOTFOUND: "the PostgreSQL host's name does not resolve",
  EAI_AGAIN: "the PostgreSQL host's name does not resolve",
  CONNECT_TIMEOUT: 'connecting to PostgreSQL timed out',
  CONNECTION_CLOSED: 'the connection to PostgreSQL closed',
  CONNECTION_DESTROYED: 'the connection to PostgreSQL was closed',
  CONNECTION_ENDED: 'the event store is closing',
};

/** Why a failure is passing, or undefined when it is not. */
export function unavailableReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  if (CONNECTION_CODES[code]) return CONNECTION_CODES[code];
  if ((error as { name?: unknown }).name === 'PostgresError' || /^[0-9A-Z]{5}$/.test(code))
    return UNAVAILABLE_STATES[code] ?? UNAVAILABLE_STATES[code.slice(0, 2)];
  return undefined;
}

/** True when the request may have reached the server before the failure (its outcome is unknown). */
function outcomeUnknown(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'CONNECTION_CLOSED' || code === 'ETIMEDOUT' || code === '57P01';
}

/**
 * An append's failure as the caller gets it: UnavailableError (503) when passing, the error
 * itself otherwise. A write is one statement in one transaction, so it is stored whole or not at
 * all; when the connection broke while it ran, the message says the outcome is unknown.
 */
export function translateWriteError(error: unknown): unknown {
  const reason = unavailableReason(error);
  if (!reason) return error;
  const outcome = outcomeUnknown(error)
    ? 'The connection broke during the write: it was stored whole or not at all; read before retrying a create.'
    : 'Nothing was written; retry later.';
  return new UnavailableError(`The event store cannot take writes: ${reason}. ${outcome}`, { cause: errorText(error) });
}

/** A read's failure as the caller gets it. */
export function translateReadError(error: unknown): unknown {
  const reason = unavailableReason(error);
  if (!reason) return error;
  return new UnavailableError(`The event store cannot be read: ${reason}; retry later.`, { cause: errorText(error) });
}

/**
 * A failure of another store on PostgreSQL (the read models, the decision log) as the caller gets
 * it: UnavailableError (503, retry later) when passing, the error itself otherwise.
 */
export function translateStoreError(error: unknown, store: string): unknown {
  const reason = unavailableReason(error);
  if (!reason) return error;
  return new UnavailableError(`${store} cannot be reached: ${reason}; retry later.`, { cause: errorText(error) });
}

function errorText(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return `${typeof code === 'string' ? `${code}: ` : ''}${typeof message === 'string' ? message : String(error)}`;
}
