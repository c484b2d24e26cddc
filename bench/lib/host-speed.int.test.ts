import { cpuCounters, probeHost, stealPercentSince } from './host-speed';
import { renderTable } from './table';

describe('host speed', () => {
  it('times the probe per document and per row', () => {
    const probe = probeHost();
    for (const us of [probe.jsUs, probe.sqliteUs]) {
      expect(Number.isFinite(us)).toBe(true);
      expect(us).toBeGreaterThan(0);
      // A document or a row takes microseconds, not milliseconds: the unit is per item, not per round.
      expect(us).toBeLessThan(1000);
    }
  });

  it('tells the steal of an interval as a percentage, and nothing without counters', () => {
    expect(stealPercentSince(null)).toBeNull();
    const from = cpuCounters();
    if (from === null) return; // not Linux: no /proc/stat
    expect(from.total).toBeGreaterThan(0);
    // Counters from far back: the interval is long enough to have ticked.
    const steal = stealPercentSince({ total: 0, steal: 0 });
    expect(steal).not.toBeNull();
    expect(steal!).toBeGreaterThanOrEqual(0);
    expect(steal!).toBeLessThanOrEqual(100);
  });

  it('prints the host of each row under the table', () => {
    const row = { id: 'copy', title: 'copy', value: 1, unit: 's', better: 'lower' as const };
    const host = { jsUs: 4.5, sqliteUs: 3.25, stealPercent: 0.5 };
    const table = renderTable([
      { ...row, host },
      { ...row, id: 'copy-embedded', title: 'copy, embedded', host },
      { ...row, id: 'memory', title: 'memory', host: { jsUs: 9, sqliteUs: 7, stealPercent: null } },
      { ...row, id: 'rebuild', title: 'rebuild' },
    ]);
    expect(table).toContain(
      'host before each row (µs per document / per row; steal during it): copy, copy-embedded 4.5/3.25, steal 0.5%; memory 9/7',
    );
    expect(table).not.toContain('rebuild 4.5');
  });
});
