import { copiedId, deterministicId, isUuid, newId } from './ids';

describe('newId', () => {
  it('makes UUIDs of version 7 that sort in the order they were made, past 4,096 in one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(ids.every(isUuid)).toBe(true);
    expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('starts with the time in milliseconds', () => {
    const before = Date.now();
    const id = newId();
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    // At most a few milliseconds borrowed ahead by the test above (4,096 ids a millisecond).
    expect(ms).toBeLessThan(Date.now() + 100);
  });
});

describe('copiedId', () => {
  it('keeps the order of time-ordered source ids, and is the same for the same (environment, source id)', () => {
    const sources = Array.from({ length: 5_000 }, () => newId());
    const copied = sources.map((id) => copiedId('target-env', id));
    expect(copied.every(isUuid)).toBe(true);
    expect([...copied].sort()).toEqual(copied);
    expect(new Set(copied).size).toBe(copied.length);
    expect(sources.map((id) => copiedId('target-env', id))).toEqual(copied);
    // Another target environment: other ids (the random part comes from the hash of both).
    const elsewhere = sources.map((id) => copiedId('other-env', id));
    expect(elsewhere.filter((id, i) => id === copied[i])).toEqual([]);
    expect(copied.filter((id, i) => id === sources[i])).toEqual([]);
  });

  it('is deterministicId for any other source id (version 4 ids, keys)', () => {
    const v4 = '3f9c633e-6288-4522-8a1b-0c7d5e2f4a10';
    expect(copiedId('target-env', v4)).toBe(deterministicId('target-env', v4));
    expect(copiedId('target-env', 'r1')).toBe(deterministicId('target-env', 'r1'));
  });
});
