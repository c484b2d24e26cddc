import { decodeCursor, encodeCursor } from '../../command-service/grant-queries/cursor';
import { byteOrder } from '../../shared/docstore/value-order';
import { ValidationError } from '../../shared/errors';

describe('keyset cursors', () => {
  it('round-trip the last key for the same query', () => {
    const query = ['user-permissions', { user: 'alice' }];
    expect(decodeCursor(encodeCursor('document:d42', query), query)).toBe('document:d42');
    expect(decodeCursor(undefined, query)).toBeNull();
    expect(decodeCursor('', query)).toBeNull();
  });

  it('refuse a malformed cursor, or one minted for another query, as a 422', () => {
    const cursor = encodeCursor('document:d42', ['user-permissions', { user: 'alice' }]);
    expect(() => decodeCursor('not-a-cursor', ['user-permissions', { user: 'alice' }])).toThrow(ValidationError);
    expect(() => decodeCursor(cursor, ['user-permissions', { user: 'bob' }])).toThrow(ValidationError);
  });

  it('order strings by UTF-8 bytes, as the stores sort them', () => {
    // U+FF5E sorts before U+1F600 in UTF-8, but after it in UTF-16 code units.
    expect(['\u{1F600}', '\uFF5E', 'a'].sort(byteOrder)).toEqual(['a', '\uFF5E', '\u{1F600}']);
  });
});
