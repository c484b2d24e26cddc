/**
 * The time "now", as the service reads it where an answer depends on it (expiring access:
 * docs/expiring-access.md). Passed down from the composition root, so that a test can hold the
 * service at an instant of its choosing and move it by a millisecond.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock a test sets: it stays where it was put until moved. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}

  now(): number {
    return this.ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
