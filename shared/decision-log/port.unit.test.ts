import { decisionId, idTime, idTimeBound } from './port';

describe('decision ids', () => {
  it('are UUIDv7s of the time given, in the order made within a millisecond, all different', () => {
    const t = Date.UTC(2026, 4, 1, 12, 0, 0, 123);
    const ids = Array.from({ length: 5000 }, (_, i) => decisionId(t + Math.floor(i / 1000)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids.map(idTime)).toEqual(ids.map((_, i) => t + Math.floor(i / 1000)));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The bound of a time is below every id of that time and above every earlier one.
    expect(ids.every((id) => id >= idTimeBound(t))).toBe(true);
    expect(decisionId(t - 1) < idTimeBound(t)).toBe(true);
  });
});
