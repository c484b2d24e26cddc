/** What the bench reads of a service's `GET /metrics` (Prometheus text format). */

/** A histogram's cumulative bucket counts by upper bound (`+Inf` last), summed over its label sets. */
export type Buckets = Array<{ le: number; count: number }>;

export function histogram(text: string, name: string): Buckets {
  const counts = new Map<number, number>();
  const line = new RegExp(`^${name}_bucket\\{(?:[^}]*,)?le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm');
  for (const match of text.matchAll(line)) {
    const le = match[1] === '+Inf' ? Infinity : Number(match[1]);
    counts.set(le, (counts.get(le) ?? 0) + Number(match[2]));
  }
  return [...counts].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}

/** The observations between two scrapes of the same histogram. */
export function since(before: Buckets, after: Buckets): Buckets {
  return after.map(({ le, count }) => ({ le, count: count - (before.find((b) => b.le === le)?.count ?? 0) }));
}

/**
 * The q-quantile of a histogram, interpolated linearly within its bucket, as PromQL's
 * histogram_quantile does: exact only to the bucket's bounds, which the caller should say.
 */
export function quantile(buckets: Buckets, q: number): number {
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of buckets) {
    if (count >= rank) {
      if (le === Infinity) return lower;
      return lower + ((le - lower) * (rank - below)) / Math.max(1, count - below);
    }
    lower = le;
    below = count;
  }
  return lower;
}

/** A gauge's value (the first label set that matches `labels`, e.g. `follower="read-models"`). */
export function gauge(text: string, name: string, labels = ''): number | null {
  const match = new RegExp(`^${name}(?:\\{[^}]*${labels}[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}
