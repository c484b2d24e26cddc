/**
 * Tracks a monotonically increasing position and wakes waiters when it passes
 * theirs. Waiters are kept sorted by nothing: there are few at a time (one per
 * in-flight write), and each advance wakes only the ones it satisfies.
 */
export class PositionNotifier {
  private current = 0;
  private waiters = new Set<{ position: number; wake: (reached: boolean) => void }>();

  get position(): number {
    return this.current;
  }

  advance(position: number): void {
    if (position <= this.current) return;
    this.current = position;
    for (const waiter of this.waiters) {
      if (waiter.position <= position) {
        this.waiters.delete(waiter);
        waiter.wake(true);
      }
    }
  }

  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (position <= this.current) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        position,
        wake: (reached: boolean) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
