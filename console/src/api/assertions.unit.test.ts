import { parseAsOf, parseEdits, resourceText } from './assertions';

describe('the Tests page inputs', () => {
  it('reads as_of as now, a log position or an ISO date-time with its offset, and refuses anything else', () => {
    expect(parseAsOf('  ')).toBeNull();
    expect(parseAsOf('1234')).toBe(1234);
    expect(parseAsOf('2026-12-01T09:00:00Z')).toBe('2026-12-01T09:00:00Z');
    expect(parseAsOf('2026-12-01T09:00:00.123+01:00')).toBe('2026-12-01T09:00:00.123+01:00');
    for (const bad of ['yesterday', '2026-12-01', '2026-12-01T09:00:00', '2026-13-45T99:00:00Z', '-3'])
      expect(() => parseAsOf(bad)).toThrow(/neither a log position nor an ISO date-time/);
  });

  it('reads the dry run edits as a non-empty array of {method, path, body?}, naming the edit that is not one', () => {
    const edit = { method: 'PATCH', path: '/v2/schema/p/e/resources/file', body: { name: 'File' } };
    expect(parseEdits(JSON.stringify([edit]))).toEqual([edit]);
    expect(() => parseEdits('not json')).toThrow(/not JSON/);
    expect(() => parseEdits('[]')).toThrow(/non-empty JSON array/);
    expect(() => parseEdits('{"method": "POST"}')).toThrow(/non-empty JSON array/);
    expect(() => parseEdits(JSON.stringify([edit, { method: 'GET', path: '/x' }]))).toThrow(/^edit 2:/);
    expect(() => parseEdits(JSON.stringify([null]))).toThrow(/^edit 1:/);
  });

  it('shows a resource as type:key, or its type alone', () => {
    expect(resourceText({ type: 'file', key: 'readme', tenant: null, attributes: null })).toBe('file:readme');
    expect(resourceText({ type: 'file', key: null, tenant: null, attributes: null })).toBe('file');
  });
});
