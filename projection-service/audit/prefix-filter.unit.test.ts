import { PrefixFilter } from './prefix-filter';

describe('PrefixFilter', () => {
  const prefixes = (from: number, count: number) => Array.from({ length: count }, (_, i) => `a1b|rq=req-${from + i}|`);

  it('holds every string added, and few it was not given, up to its capacity', () => {
    const filter = new PrefixFilter(20_000);
    const added = prefixes(0, 20_000);
    for (const text of added) filter.add(text);
    expect(added.every((text) => filter.mayHold(text))).toBe(true);
    const falsePositives = prefixes(1_000_000, 20_000).filter((text) => filter.mayHold(text)).length;
    // About 1 in 1,000 at capacity (16 bits and 6 probes per string); 1% would mean the hashes are poor.
    expect(falsePositives).toBeLessThan(200);
    expect(filter.full).toBe(false);
  });

  it('counts a string added again once, and is full past its capacity', () => {
    const filter = new PrefixFilter(100);
    for (let i = 0; i < 5; i++) for (const text of prefixes(0, 100)) filter.add(text);
    expect(filter.full).toBe(false);
    filter.add('another|');
    expect(filter.full).toBe(true);
    const grown = filter.grown();
    expect(grown.capacity).toBe(200);
    expect(grown.full).toBe(false);
    expect(grown.mayHold('another|')).toBe(false);
  });

  it('tells apart strings that differ in one unit or in their scope code, non-ASCII ones, and the empty string', () => {
    const filter = new PrefixFilter(1_000);
    filter.add('0|u=alice|');
    filter.add('0|u=ålîçé€|');
    expect(filter.mayHold('0|u=alice|')).toBe(true);
    expect(filter.mayHold('0|u=ålîçé€|')).toBe(true);
    expect(filter.mayHold('0|u=alicf|')).toBe(false);
    expect(filter.mayHold('1|u=alice|')).toBe(false);
    expect(filter.mayHold('')).toBe(false);
  });
});
