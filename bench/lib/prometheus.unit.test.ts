import { gauge, histogram, quantile, since } from './prometheus';

const scrape = (counts: [string, number][]) =>
  [
    '# HELP rebac_event_store_append_duration_seconds Time from an append being asked to its answer',
    '# TYPE rebac_event_store_append_duration_seconds histogram',
    ...counts.map(([le, n]) => `rebac_event_store_append_duration_seconds_bucket{le="${le}"} ${n}`),
    'rebac_projection_position{projection="read-models"} 1016',
    'rebac_event_log_head_position 10016',
  ].join('\n');

describe("what the bench reads of a service's /metrics", () => {
  it('reads a histogram, the observations between two scrapes, and quantiles interpolated within a bucket', () => {
    const before = histogram(
      scrape([
        ['0.001', 10],
        ['0.005', 10],
        ['0.01', 10],
        ['+Inf', 10],
      ]),
      'rebac_event_store_append_duration_seconds',
    );
    const after = histogram(
      scrape([
        ['0.001', 10],
        ['0.005', 60],
        ['0.01', 108],
        ['+Inf', 110],
      ]),
      'rebac_event_store_append_duration_seconds',
    );
    const between = since(before, after);
    expect(between).toEqual([
      { le: 0.001, count: 0 },
      { le: 0.005, count: 50 },
      { le: 0.01, count: 98 },
      { le: Infinity, count: 100 },
    ]);
    // The 50th of 100 is the last of the 1–5 ms bucket; the 75th is half way through the 5–10 ms one (48 in it).
    expect(quantile(between, 0.5)).toBeCloseTo(0.005);
    expect(quantile(between, 0.74)).toBeCloseTo(0.005 + 0.005 * (24 / 48));
    // Past the last finite bound: the bound, as histogram_quantile answers.
    expect(quantile(between, 0.99)).toBeCloseTo(0.01);
    expect(quantile(since(after, after), 0.5)).toBeNaN();
  });

  it('reads a gauge, by label where it has them', () => {
    const text = scrape([]);
    expect(gauge(text, 'rebac_projection_position', 'projection="read-models"')).toBe(1016);
    expect(gauge(text, 'rebac_event_log_head_position')).toBe(10016);
    expect(gauge(text, 'rebac_projection_lag')).toBeNull();
  });
});
