import { withFields } from './objects';

describe('withFields', () => {
  it('is the spread of base then fields: keys in that order, fields winning, base untouched', () => {
    const base = { id: 'a', key: 'k', updated_at: 'then' };
    const made = withFields(base, { updated_at: 'now', _to: 7 });
    expect(made).toEqual({ ...base, updated_at: 'now', _to: 7 });
    expect(Object.keys(made)).toEqual(['id', 'key', 'updated_at', '_to']);
    expect(base).toEqual({ id: 'a', key: 'k', updated_at: 'then' });
    expect(made).not.toBe(base);
  });

  it('takes computed keys (a filter on a field named at run time)', () => {
    const field = 'object';
    expect(withFields({ environment_id: 'e' }, { [field]: { $gt: 'x' } })).toEqual({ environment_id: 'e', object: { $gt: 'x' } });
  });
});
