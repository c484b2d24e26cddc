/** The instant the expiry tests' clocks start at: far enough ahead that every end written is in the future. */
export const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** An instant as the API writes and answers it (ISO 8601 UTC, milliseconds). */
export const at = (ms: number): string => new Date(ms).toISOString();
