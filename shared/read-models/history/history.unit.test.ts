import { sameDocument } from './history';

describe('sameDocument: whether a version holds what a document holds', () => {
  it('counts a top-level null as absent, both ways (a column read back against a document handed over)', () => {
    expect(sameDocument({ id: 'a', tenant: null }, { id: 'a' })).toBe(true);
    expect(sameDocument({ id: 'a' }, { id: 'a', tenant: null })).toBe(true);
    expect(sameDocument({ id: 'a', tenant: undefined }, { id: 'a', tenant: null })).toBe(true);
  });

  it('tells any other difference, nested ones included, and ignores key order', () => {
    expect(sameDocument({ id: 'a', key: 'x' }, { id: 'a', key: 'y' })).toBe(false);
    expect(sameDocument({ id: 'a', key: 'x' }, { id: 'a' })).toBe(false);
    expect(sameDocument({ id: 'a' }, { id: 'a', key: 'x' })).toBe(false);
    expect(sameDocument({ id: 'a', attributes: { n: 1 } }, { id: 'a', attributes: { n: 2 } })).toBe(false);
    // Below the top level, null and absent still differ, as they do in what the API returns.
    expect(sameDocument({ id: 'a', attributes: { n: null } }, { id: 'a', attributes: {} })).toBe(false);
    expect(sameDocument({ key: 'x', id: 'a', roles: [1, 2] }, { id: 'a', roles: [1, 2], key: 'x' })).toBe(true);
  });
});
